/** The public entry of the reconciliation module: what other modules may use. */
export { countOpenDiscrepancies } from './reconciliation-repo.ts';
