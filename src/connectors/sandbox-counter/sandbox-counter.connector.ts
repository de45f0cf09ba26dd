import type { Connector, ConnectorCapabilities } from '../core/connector.ts';
import { digitsFrom } from '../core/deterministic.ts';

const PARTNERS = [
  { code: 'ALFAMART', name: 'Alfamart (sandbox)', outlets: ['Alfamart', 'Alfamidi', 'Dan+Dan'] },
  { code: 'INDOMARET', name: 'Indomaret (sandbox)', outlets: ['Indomaret', 'Ceriamart'] },
] as const;

export const sandboxCounterCapabilities: ConnectorCapabilities = {
  connector: 'sandbox_counter',
  displayName: 'Sandbox over-the-counter',
  channel: 'counter',
  simulator: true,
  instruments: PARTNERS.map(({ code, name }) => ({ code, name })),
  currencies: {
    IDR: { minMinor: 1_000_000n, maxMinor: 500_000_000n }, // 10,000.00 – 5,000,000.00
    PHP: { minMinor: 5_000n, maxMinor: 5_000_000n }, // 50.00 – 50,000.00
  },
  instructionTtl: { defaultMs: 48 * 3_600_000, minMs: 3_600_000, maxMs: 7 * 24 * 3_600_000 },
  supports: { cancel: true, refund: false, partialRefund: false, settlement: true },
};

/** A simulated retail counter partner: a payment code and the outlets that accept it. */
export function createSandboxCounterConnector(): Connector {
  return {
    capabilities: sandboxCounterCapabilities,
    async createCharge(request) {
      const partner = PARTNERS.find((p) => p.code === request.instrument);
      if (partner === undefined) return { kind: 'refused', code: 'unknown_partner', message: `no partner ${request.instrument}` };
      const code = `TRB${digitsFrom(`pc:${request.attemptId}`, 10)}`;
      return {
        kind: 'issued',
        providerReference: `sbct_${digitsFrom(request.attemptId, 16)}`,
        expiresAt: request.expiresAt,
        instructions: {
          type: 'counter',
          partner: partner.code,
          partner_name: partner.name,
          payment_code: code,
          barcode_value: code,
          outlets: [...partner.outlets],
        },
      };
    },
  };
}
