import { setFlagsFromString } from 'node:v8';

/**
 * V8 settings for a long-running request service, applied first thing by the server's `main()`
 * and `tributary worker` (never by a library import). Why, and what it measured: decision 0026.
 *
 * Allocation-site pretenuring is off. V8 allocates an object straight in the old generation once
 * objects from the same allocation site have mostly survived a scavenge. node-postgres builds
 * every row of every query at one site; a create keeps its rows across a provider round trip, the
 * site gets pretenured, and every GET's short-lived rows then land in the old generation, to be
 * freed only by a Mark-Compact — where the paced GET's slow clusters start.
 *
 * Set from code rather than on a command line because the service is started by `npm start`, the
 * CLI, supervisors, Procfiles and test harnesses alike; it runs before any request path allocates.
 */
export function tuneHeapForRequestService(): void {
  setFlagsFromString('--no-allocation-site-pretenuring');
}
