// The paced load generator's thread (bench/lib/paced-thread-worker.ts) as a plain module: a worker
// does not inherit a loader registered through tsx's API, so it registers tsx itself (as
// src/db/pglite-worker-entry.js does).
import { register } from 'tsx/esm/api';

register();
await import('./paced-thread-worker.ts');
