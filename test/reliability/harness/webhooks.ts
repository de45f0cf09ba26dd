import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { call } from './api-client.ts';
import { REPO_ROOT, serverEnv, type StoreTarget } from './processes.ts';

/**
 * Webhook delivery for the reliability suite and the benchmark, written against the fixed
 * interface (product.md: `POST /webhook_endpoint/create`, Standard Webhooks headers, events with
 * `id`, `type`, `created_at`, `data.object`) and `npx tributary worker` on PostgreSQL.
 */

export interface Delivery {
  /** The endpoint's path on the receiver (several endpoints can point at one receiver). */
  path: string;
  webhookId: string;
  receivedMs: number;
  event: { id?: string; type?: string; created_at?: string; data?: { object?: { id?: string } } };
}

export interface WebhookReceiver {
  url: string;
  deliveries: Delivery[];
  close(): Promise<void>;
}

/** A loopback receiver that answers 204 at once and records every signed delivery. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const deliveries: Delivery[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      const receivedMs = Date.now();
      const webhookId = request.headers['webhook-id'];
      if (typeof webhookId === 'string') {
        try {
          deliveries.push({
            path: request.url ?? '/',
            webhookId,
            receivedMs,
            event: JSON.parse(Buffer.concat(chunks).toString()) as Delivery['event'],
          });
        } catch {
          // not an event body: not counted
        }
      }
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    deliveries,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Registers the receiver as a webhook endpoint of the merchant (all event types). */
export async function registerEndpoint(baseUrl: string, apiKey: string, receiverUrl: string, path = '/hook'): Promise<void> {
  const res = await call(baseUrl, 'POST', '/webhook_endpoint/create', {
    key: apiKey,
    body: { url: `${receiverUrl}${path}`, description: 'reliability receiver' },
  });
  if (!res.ok || res.status >= 300) {
    throw new Error(`registering the webhook endpoint failed: ${res.ok ? `${res.status} ${res.text}` : res.error}`);
  }
}

/**
 * On PostgreSQL a separate `npx tributary worker` dispatches beside the server's own dispatcher,
 * so the scenario also covers several dispatchers sharing (and surviving the kill of) one queue.
 */
export function startWorkerIfNeeded(target: StoreTarget, secret: string, env: Record<string, string>): ChildProcess | undefined {
  if (target.kind !== 'postgres') return undefined;
  return spawn(process.execPath, ['bin/tributary.js', 'worker'], {
    cwd: REPO_ROOT,
    env: serverEnv(target, secret, env),
    stdio: 'ignore',
  });
}
