import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach } from 'node:test';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { type ContractDocument, contractFor, type Exchange } from './response-contract.ts';

/**
 * Puts every answer of an in-process app under the published contract (response-contract.ts):
 * `app.inject` answers are checked as the test receives them (a mismatch throws there, failing
 * that test), and answers sent over loopback HTTP (SDK, CLI, browser tests) are checked as they
 * leave the server; a mismatch among those fails the test that was running (afterEach) and, at
 * the latest, the app's close().
 */
const pending: string[] = [];

afterEach(() => {
  const found = pending.splice(0);
  assert.deepEqual(found, [], `answers the OpenAPI document does not describe:\n${found.join('\n')}`);
});

export function takeContractViolations(): string[] {
  return pending.splice(0);
}

function injectExchange(options: InjectOptions | string, res: LightMyRequestResponse): Exchange {
  const opts = typeof options === 'string' ? { url: options } : options;
  const url = typeof opts.url === 'string' ? opts.url : ((opts.path as string | undefined) ?? '/');
  const query = opts.query;
  const withQuery =
    query !== undefined && typeof query === 'object' && Object.keys(query).length > 0 && !url.includes('?')
      ? `${url}?${new URLSearchParams(query as Record<string, string>).toString()}`
      : url;
  return {
    method: (opts.method ?? 'GET').toUpperCase(),
    url: withQuery,
    status: res.statusCode,
    headers: res.headers,
    body: res.body,
  };
}

export function tapContract(app: FastifyInstance): void {
  const contract = contractFor(() => app.swagger() as unknown as ContractDocument);
  const inject = app.inject.bind(app) as (options: InjectOptions | string) => Promise<LightMyRequestResponse>;
  const checked = async (options: InjectOptions | string) => {
    const res = await inject(options);
    const problems = contract.check(injectExchange(options, res));
    assert.deepEqual(problems, [], `an answer the OpenAPI document does not describe:\n${problems.join('\n')}`);
    return res;
  };
  (app as unknown as { inject: unknown }).inject = (options?: InjectOptions | string) => {
    if (options === undefined) throw new Error('the chained inject() is not checked against the contract: pass options');
    return checked(options);
  };

  app.server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    let headStatus: number | undefined;
    let headHeaders: Record<string, string | string[] | number | undefined> = {};
    const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
    (res as unknown as { writeHead: unknown }).writeHead = (status: number, ...rest: unknown[]) => {
      headStatus = status;
      const last = rest[rest.length - 1];
      if (last !== null && typeof last === 'object' && !Array.isArray(last)) headHeaders = last as typeof headHeaders;
      return writeHead(status, ...rest);
    };
    const keep = (chunk: unknown) => {
      if (typeof chunk === 'string') chunks.push(Buffer.from(chunk));
      else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
    };
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    (res as unknown as { write: unknown }).write = (chunk: unknown, ...rest: unknown[]) => {
      keep(chunk);
      return write(chunk, ...rest);
    };
    const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
    (res as unknown as { end: unknown }).end = (chunk?: unknown, ...rest: unknown[]) => {
      if (typeof chunk !== 'function') keep(chunk);
      return end(chunk, ...rest);
    };
    res.once('finish', () => {
      const headers: Exchange['headers'] = { ...res.getHeaders(), ...lowerKeys(headHeaders) };
      const problems = contract.check({
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        status: headStatus ?? res.statusCode,
        headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      pending.push(...problems);
    });
  });
}

function lowerKeys(headers: Record<string, string | string[] | number | undefined>): Exchange['headers'] {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}
