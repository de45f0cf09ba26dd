import type { Connector, ConnectorCapabilities } from '../core/connector.ts';
import { digitsFrom, tokenFrom } from '../core/deterministic.ts';

const WALLETS = [
  { code: 'SANDBOXPAY', name: 'SandboxPay' },
  { code: 'DANA', name: 'DANA (sandbox)' },
  { code: 'GCASH', name: 'GCash (sandbox)' },
] as const;

export const sandboxEwalletCapabilities: ConnectorCapabilities = {
  connector: 'sandbox_ewallet',
  displayName: 'Sandbox e-wallet',
  channel: 'ewallet',
  simulator: true,
  instruments: WALLETS,
  currencies: {
    IDR: { minMinor: 10_000n, maxMinor: 2_000_000_000n }, // 100.00 – 20,000,000.00
    PHP: { minMinor: 100n, maxMinor: 10_000_000n }, // 1.00 – 100,000.00
    VND: { minMinor: 1_000n, maxMinor: 50_000_000n }, // 1,000 – 50,000,000 (no minor unit)
  },
  instructionTtl: { defaultMs: 30 * 60_000, minMs: 5 * 60_000, maxMs: 24 * 3_600_000 },
  supports: { cancel: true, refund: true, partialRefund: true, settlement: true },
};

/** A simulated e-wallet: a checkout URL, a deep link and a QR string per attempt. */
export function createSandboxEwalletConnector(): Connector {
  return {
    capabilities: sandboxEwalletCapabilities,
    async createCharge(request) {
      const wallet = WALLETS.find((w) => w.code === request.instrument);
      if (wallet === undefined) return { kind: 'refused', code: 'unknown_wallet', message: `no wallet ${request.instrument}` };
      const token = tokenFrom(`ew:${request.attemptId}`, 22);
      return {
        kind: 'issued',
        providerReference: `sbew_${digitsFrom(request.attemptId, 16)}`,
        expiresAt: request.expiresAt,
        instructions: {
          type: 'ewallet',
          provider: wallet.code,
          provider_name: wallet.name,
          checkout_url: `https://checkout.sandbox.invalid/${wallet.code.toLowerCase()}/${token}`,
          deep_link: `${wallet.code.toLowerCase()}://pay?token=${token}`,
          qr_string: `00020101021226${digitsFrom(`qr:${request.attemptId}`, 24)}5303360540${request.amountMinor}6304`,
        },
      };
    },
  };
}
