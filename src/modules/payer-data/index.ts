/** The public entry of the payer-data module (docs/payer-data.md): erasure of the payer's personal data. */
export { type EraseResult, eraseDuePayerData, erasePayerData, type PayerDataDeps } from './erase-payer-data.ts';
