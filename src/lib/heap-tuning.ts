import { setFlagsFromString } from 'node:v8';

/**
 * V8 settings for a long-running request service, applied at the start of the server and the
 * webhook worker (never by a library import): decision 0026, docs/benchmarks.md.
 *
 * Allocation-site pretenuring is off. V8 allocates an object straight in the old generation once
 * objects from the same allocation site have mostly survived a scavenge. Our hottest sites are
 * shared by every request: node-postgres builds every row of every query at one site, Fastify one
 * reply, postgres-date one Date. A create keeps its rows across a provider round trip, so the
 * shared sites get pretenured, and from then on every GET's short-lived rows land in the old
 * generation and are freed only by a Mark-Compact, whose incremental marking steps stall the
 * event loop: the GET tail's clusters start at those collections. Measured with the probe,
 * alternated, same build (PostgreSQL, 15 s windows): old-space growth per 15 s at 750 GET/s
 * 39–42 MB → 13–15 MB, at 100 creates/s 21–23 MB → 9 MB, Mark-Compacts 1–2 → 0–1; server CPU per
 * request unchanged (GET 0.674–0.681 vs 0.687–0.695 ms, create 4.37–4.48 vs 4.50–4.56 ms).
 *
 * Set from code rather than on a command line because the service is started by `npm start`, the
 * CLI, supervisors, Procfiles and test harnesses alike. It is called before the service allocates
 * anything on its request paths; V8 reads the flag when it weighs a site's survival feedback,
 * which then never turns into a pretenuring decision.
 */
export function tuneHeapForRequestService(): void {
  setFlagsFromString('--no-allocation-site-pretenuring');
}
