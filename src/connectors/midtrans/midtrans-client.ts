import type { Logger } from '../../lib/logger.ts';
import { createProviderHttp, type ProviderHttp, type ProviderHttpOptions } from '../core/provider-http.ts';
import { isRecord } from '../core/http-connector.ts';

/**
 * The one Midtrans Core API client both Midtrans connectors share: HTTP Basic with the server key
 * (user) and an empty password, the deadline and retry rules of provider-http.ts, and Midtrans'
 * habit of carrying the real answer code in the body's `status_code` (sometimes with HTTP 200).
 */
export interface MidtransClientOptions {
  /** https://api.midtrans.com (production) or https://api.sandbox.midtrans.com; resolved per call. */
  baseUrl: () => string;
  serverKey: string;
  log: Logger;
  http?: Pick<ProviderHttpOptions, 'maxRetries' | 'retryBackoffMs' | 'perTryTimeoutMs' | 'fetchImpl'>;
}

export type MidtransAnswer =
  /** Midtrans answered: `code` is the body's status_code (else the HTTP status), as a string. */
  | { kind: 'answer'; code: string; body: Record<string, unknown> }
  /** No usable answer (timeout, network, 5xx, unreadable): Midtrans may or may not have acted. */
  | { kind: 'unknown'; code: string; message: string };

export interface MidtransClient {
  charge(bodyText: string, options: { notificationUrl: string | undefined }, signal: AbortSignal): Promise<MidtransAnswer>;
  status(id: string, signal: AbortSignal): Promise<MidtransAnswer>;
  cancel(id: string, signal: AbortSignal): Promise<MidtransAnswer>;
  expire(id: string, signal: AbortSignal): Promise<MidtransAnswer>;
}

const enc = encodeURIComponent;

export function createMidtransClient(options: MidtransClientOptions): MidtransClient {
  const http: ProviderHttp = createProviderHttp({
    connector: 'midtrans',
    baseUrl: options.baseUrl,
    apiKey: options.serverKey,
    auth: 'basic',
    log: options.log,
    ...options.http,
  });

  async function call(request: Parameters<ProviderHttp['send']>[0], signal: AbortSignal): Promise<MidtransAnswer> {
    const res = await http.send(request, signal);
    if (res.kind === 'unknown') return { kind: 'unknown', code: res.code, message: res.message };
    if (!isRecord(res.body)) return { kind: 'unknown', code: 'bad_response', message: `status ${res.status}: no JSON object` };
    const bodyCode = res.body['status_code'];
    const code = typeof bodyCode === 'string' && /^\d{3}$/.test(bodyCode) ? bodyCode : String(res.status);
    // A 5xx in the body is Midtrans failing, whatever the HTTP status said: no answer.
    if (code.startsWith('5')) {
      const message = typeof res.body['status_message'] === 'string' ? res.body['status_message'].slice(0, 200) : '';
      return { kind: 'unknown', code: 'provider_error', message: `status_code ${code}: ${message}` };
    }
    return { kind: 'answer', code, body: res.body };
  }

  return {
    charge: (bodyText, o, signal) =>
      call(
        {
          method: 'POST',
          path: '/v2/charge',
          bodyText,
          // order_id makes the charge idempotent at Midtrans (a re-send is answered 406), so a retry
          // after a lost answer cannot charge twice.
          retrySafe: true,
          // Each Midtrans connector has its own callback path; the dashboard has one notification URL.
          ...(o.notificationUrl === undefined ? {} : { headers: { 'x-override-notification': o.notificationUrl } }),
        },
        signal,
      ),
    status: (id, signal) => call({ method: 'GET', path: `/v2/${enc(id)}/status` }, signal),
    // Closing twice is harmless (the second gets 412 and the connector reads the status).
    cancel: (id, signal) => call({ method: 'POST', path: `/v2/${enc(id)}/cancel`, retrySafe: true }, signal),
    expire: (id, signal) => call({ method: 'POST', path: `/v2/${enc(id)}/expire`, retrySafe: true }, signal),
  };
}
