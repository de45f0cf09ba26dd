import type autocannon from 'autocannon';
import { quickStartBody } from '../test/reliability/harness/api-client.ts';
import type { LoadRequest } from './lib/load.ts';

/**
 * The request mixes of the scenarios. Each returns autocannon requests; the create mix records a
 * sample of what it created so the replay and GET scenarios reuse real payments and keys.
 */
export interface CreatedSample {
  key: string;
  body: string;
  id: string;
}

const json = { 'content-type': 'application/json' };

export function auth(apiKey: string): Record<string, string> {
  return { authorization: `Bearer ${apiKey}` };
}

/** Unique idempotency key and reference_no per request (the create scenario). */
export function createRequests(apiKey: string, runId: string, sample: CreatedSample[], sampleSize = 1000): LoadRequest[] {
  let n = 0;
  return [
    {
      method: 'POST',
      path: '/payment/create',
      setupRequest(request, context) {
        n += 1;
        const key = `bench-${runId}-${n}`;
        const body = JSON.stringify(quickStartBody(key));
        context['key'] = key;
        context['body'] = body;
        return { ...request, headers: { ...auth(apiKey), ...json, 'idempotency-key': key }, body };
      },
      onResponse(status, body, context) {
        if (status !== 201 || sample.length >= sampleSize) return;
        sample.push({ key: String(context['key']), body: String(context['body']), id: (JSON.parse(body) as { id: string }).id });
      },
    },
  ];
}

/**
 * POST /checkout/create with a unique idempotency key and reference_no per request (the
 * checkout_create scenario): the keyed pipeline, routing's servability check and one insert, no
 * provider call — judged against the same database ceiling as create.
 */
export function checkoutCreateRequests(apiKey: string, runId: string): LoadRequest[] {
  let n = 0;
  return [
    {
      method: 'POST',
      path: '/checkout/create',
      setupRequest(request) {
        n += 1;
        const key = `bench-cs-${runId}-${n}`;
        const body = JSON.stringify({ amount: 150000.0, currency: 'IDR', reference_no: key, email: 'payer@example.com' });
        return { ...request, headers: { ...auth(apiKey), ...json, 'idempotency-key': key }, body };
      },
    },
  ];
}

/** Round-robin over created payments: the same key and body again (a replay). */
export function replayRequests(apiKey: string, sample: readonly CreatedSample[], path = '/payment/create'): LoadRequest[] {
  let i = 0;
  return [
    {
      method: 'POST',
      path,
      setupRequest(request) {
        const s = sample[i++ % sample.length] as CreatedSample;
        return { ...request, headers: { ...auth(apiKey), ...json, 'idempotency-key': s.key }, body: s.body };
      },
    },
  ];
}

/** Round-robin GET over payment ids under `pathPrefix`. */
export function getRequests(headers: Record<string, string>, ids: readonly string[], pathPrefix = '/payment/'): LoadRequest[] {
  let i = 0;
  return [
    {
      method: 'GET',
      path: `${pathPrefix}${ids[0]}`,
      setupRequest(request: autocannon.Request) {
        return { ...request, method: 'GET', path: `${pathPrefix}${ids[i++ % ids.length]}`, headers };
      },
    },
  ];
}

/** 80 % GET of existing payments, 20 % new creates; the choice is made per request. */
export function mixedRequests(apiKey: string, runId: string, sample: readonly CreatedSample[]): LoadRequest[] {
  const creates = createRequests(apiKey, `${runId}-mixed`, [], 0)[0] as LoadRequest;
  const gets = getRequests(
    auth(apiKey),
    sample.map((s) => s.id),
  )[0] as LoadRequest;
  return mix(gets, creates);
}

/** The same 80/20 mix against the ceiling routes. */
export function mixedCeilingRequests(paymentIds: readonly string[]): LoadRequest[] {
  const gets = getRequests({}, paymentIds, '/ceiling/payment/')[0] as LoadRequest;
  const creates: LoadRequest = {
    method: 'POST',
    path: '/ceiling/create',
    setupRequest: (request) => ({ ...request, method: 'POST', path: '/ceiling/create', headers: {}, body: '' }),
  };
  return mix(gets, creates);
}

function mix(gets: LoadRequest, creates: LoadRequest): LoadRequest[] {
  return [
    {
      method: 'GET',
      path: '/',
      setupRequest(request, context) {
        const pick = Math.random() < 0.8 ? gets : creates;
        return (pick.setupRequest as NonNullable<LoadRequest['setupRequest']>)(
          { ...request, method: pick.method, path: pick.path },
          context,
        );
      },
    },
  ];
}
