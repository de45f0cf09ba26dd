import type { InboundNotification } from '../../src/connectors/core/connector.ts';
import { type Receiver, startReceiver } from './webhook-receiver.ts';

/**
 * Tributary's stand-in for a contract test: a loopback receiver that captures every notification a
 * provider (or its simulator) sends, read back as the connector receives it.
 */
export interface CallbackReceiver {
  readonly origin: string;
  url(path?: string): string;
  /**
   * Runs `deliver` (the provider sending what it has queued) and answers the last notification it
   * sent; throws `failure` when it sent none.
   */
  delivered(deliver: () => Promise<unknown>, failure: string): Promise<InboundNotification>;
  close(): Promise<void>;
}

export async function startCallbackReceiver(): Promise<CallbackReceiver> {
  const receiver: Receiver = await startReceiver();
  return {
    origin: receiver.origin,
    url: (path) => receiver.url(path),
    async delivered(deliver, failure) {
      const before = receiver.requests.length;
      await deliver();
      const last = receiver.requests[receiver.requests.length - 1];
      if (receiver.requests.length === before || last === undefined) throw new Error(failure);
      const headers: Record<string, string | undefined> = {};
      for (const [k, v] of Object.entries(last.headers)) headers[k] = Array.isArray(v) ? v.join(',') : v;
      return { rawBody: last.body, headers };
    },
    close: () => receiver.close(),
  };
}
