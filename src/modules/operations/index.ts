/** The public entry of the operations module: what the HTTP layer's /metrics reads. */
export {
  createOperationalSnapshot,
  type OperationalSnapshot,
  type OperationalSnapshotDeps,
  type OperationalSnapshotSource,
} from './operational-snapshot.ts';
