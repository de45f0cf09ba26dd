/** The public entry of the idempotency module: what other modules may use. */
export { canonicalJson, fingerprint } from './fingerprint.ts';
export {
  type IdempotencyRecord,
  type IdempotencyScope,
  type KeyRow,
  deleteStartedKey,
  finishKey,
  finishKeyStatement,
  getKey,
  holdsLease,
  insertStartedKeyStatement,
  keyRecordOf,
  lockLeaseStatement,
  releaseLease,
  selectKeyStatement,
} from './idempotency-repo.ts';
export {
  type KeyDecision,
  type KeyedOperation,
  answerFromKey,
  decideOnExistingKey,
  existingKeyDecision,
  finishKeyWithin,
  inProgress,
  keyedOperation,
  LeaseLost,
  startKeyedOperation,
  unlessLeaseLost,
  withLease,
} from './keyed-operation.ts';
