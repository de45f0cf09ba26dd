// The embedded database's worker thread (src/db/pglite-worker.ts) as a plain module: the thread
// may be started from a process that registered tsx through its API (bin/tributary.js), which a
// worker does not inherit, so it registers tsx itself (a second registration is harmless).
import { register } from 'tsx/esm/api';

register();
await import('./pglite-worker.ts');
