/** The public entry of the webhooks module: what other modules may use. */
export { type DeliveryRecord, listDeliveriesOfEvents } from './delivery-repo.ts';
export { readWebhookBacklog, type WebhookBacklog } from './webhook-backlog.ts';
