/** The public entry of the routing module: what other modules may use. */
export type { ConnectorHealthTracker } from './connector-health.ts';
export { type Candidate, type TraceEntry, routePayment } from './route-payment.ts';
