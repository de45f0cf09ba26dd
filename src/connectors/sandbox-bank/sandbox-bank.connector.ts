import type { Connector, ConnectorCapabilities, Instrument } from '../core/connector.ts';
import { digitsFrom } from '../core/deterministic.ts';

const HOUR_MS = 3_600_000;

const BANKS: readonly (Instrument & { vaPrefix: string })[] = [
  { code: 'BCA', name: 'Bank Central Asia', vaPrefix: '3901' },
  { code: 'BNI', name: 'Bank Negara Indonesia', vaPrefix: '8808' },
  { code: 'BRI', name: 'Bank Rakyat Indonesia', vaPrefix: '2620' },
  { code: 'MANDIRI', name: 'Bank Mandiri', vaPrefix: '8860' },
  { code: 'PERMATA', name: 'Bank Permata', vaPrefix: '8214' },
];

export const sandboxBankCapabilities: ConnectorCapabilities = {
  connector: 'sandbox_bank',
  displayName: 'Sandbox Bank (virtual accounts)',
  channel: 'bank',
  simulator: true,
  instruments: BANKS.map(({ code, name }) => ({ code, name })),
  currencies: {
    IDR: { minMinor: 1_000_000n, maxMinor: 5_000_000_000_000n }, // 10,000.00 – 50,000,000,000.00
    PHP: { minMinor: 10_000n, maxMinor: 100_000_000n }, // 100.00 – 1,000,000.00
  },
  instructionTtl: { defaultMs: 24 * HOUR_MS, minMs: 15 * 60_000, maxMs: 30 * 24 * HOUR_MS },
  supports: { cancel: true, refund: true, partialRefund: true, settlement: true },
};

/** A simulated virtual-account bank. In-process and deterministic per attempt. */
export function createSandboxBankConnector(): Connector {
  return {
    capabilities: sandboxBankCapabilities,
    async createCharge(request) {
      const bank = BANKS.find((b) => b.code === request.instrument);
      if (bank === undefined) return { kind: 'refused', code: 'unknown_bank', message: `no bank ${request.instrument}` };
      return {
        kind: 'issued',
        providerReference: `sbva_${digitsFrom(request.attemptId, 16)}`,
        expiresAt: request.expiresAt,
        instructions: {
          type: 'virtual_account',
          bank_code: bank.code,
          bank_name: bank.name,
          account_number: bank.vaPrefix + digitsFrom(`va:${request.attemptId}`, 12),
          account_holder_name: request.merchantName.slice(0, 60),
        },
      };
    },
  };
}
