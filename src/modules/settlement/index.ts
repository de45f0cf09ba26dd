/** The public entry of the settlement module: what other modules may use. */
export { ingestSettlements } from './settlement-ingest.ts';
export { countOpenSettlementExceptions, EXCEPTION_KINDS, type ExceptionKind } from './settlement-exception-repo.ts';
