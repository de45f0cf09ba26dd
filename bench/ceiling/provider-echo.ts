import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { nodeHttpTransport } from '../../src/connectors/core/provider-transport.ts';

/**
 * The least a provider round trip can cost on this machine, for the create ceiling: a bare
 * node:http route on loopback that reads a charge request of the size Tributary sends and answers a
 * charge of the size the sandbox bank answers, with no work behind it; the caller uses the very
 * transport the connectors use (`nodeHttpTransport`: node:http, keep-alive agent).
 *
 * On PostgreSQL the providers are another system (their own process in the bench), so the bare
 * route runs in a process of its own (`startProviderEcho`); on the embedded store they run inside
 * the server (as `npm start` runs them), so the ceiling serves the bare route in its own process.
 */
const CHARGE_ANSWER = JSON.stringify({
  id: 'sbx_chg_01JD0000000000000000000000',
  status: 'pending',
  reference: 'att_01JD0000000000000000000000',
  amount: '15000000',
  currency: 'IDR',
  instructions: {
    type: 'virtual_account',
    bank_code: 'BCA',
    bank_name: 'Bank Central Asia',
    account_number: '3901269986246138',
    account_holder_name: 'Ceiling merchant',
  },
  expires_at: '2026-11-28T00:00:00.000Z',
});

export function listenProviderEcho(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(201, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(CHARGE_ANSWER) });
      res.end(CHARGE_ANSWER);
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}/charges`,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}

/** One provider round trip as a connector makes it: a charge request out, the answer read whole. */
export async function providerRoundTrip(url: string, seq: number): Promise<void> {
  const body = JSON.stringify({
    reference: `ceiling-${seq}`,
    amount: '15000000',
    currency: 'IDR',
    bank_code: 'BCA',
    customer_name: 'Ceiling merchant',
    expires_at: '2026-11-28T00:00:00.000Z',
  });
  const response = await nodeHttpTransport(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sandbox-ceiling' },
    body,
    signal: AbortSignal.timeout(10_000),
  });
  JSON.parse(await response.text());
  if (response.status !== 201) throw new Error(`provider echo answered ${response.status}`);
}

// Run as a process of its own: prints its URL, serves until killed.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const echo = await listenProviderEcho();
  console.log(`provider echo listening on ${echo.url}`);
}
