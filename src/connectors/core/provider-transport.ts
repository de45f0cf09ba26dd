import http from 'node:http';
import https from 'node:https';

/**
 * How provider calls go on the wire: node:http(s) with keep-alive agents, behind the small part of
 * the fetch interface the provider client uses (status and body text), so a test can still pass
 * `fetch`-shaped fakes. Not global `fetch`: its web streams cost about a tenth of the server's CPU
 * per create in the profile (docs/benchmarks.md, issue 12), for nothing a provider call needs.
 *
 * Redirects are refused, as with `redirect: 'error'`: a provider that answers 3xx is not followed
 * (the call rejects, i.e. it counts as a network error: the provider may or may not have acted).
 */
export interface TransportInit {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
}

export interface TransportResponse {
  status: number;
  text(): Promise<string>;
}

export type ProviderTransport = (url: string, init: TransportInit) => Promise<TransportResponse>;

const agentOptions = { keepAlive: true, maxSockets: 256 };
/** A provider's answer is small JSON; anything larger is refused instead of held in memory. */
export const MAX_PROVIDER_BODY_BYTES = 1024 * 1024;
const agents = { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) };

export const nodeHttpTransport: ProviderTransport = (url, init) =>
  new Promise((resolve, reject) => {
    const target = new URL(url);
    const isHttps = target.protocol === 'https:';
    if (!isHttps && target.protocol !== 'http:') {
      reject(new Error(`unsupported protocol ${target.protocol}`));
      return;
    }
    if (init.signal.aborted) {
      reject(init.signal.reason ?? new Error('aborted'));
      return;
    }
    const headers: Record<string, string> = { ...init.headers };
    if (init.body !== undefined) headers['content-length'] = String(Buffer.byteLength(init.body));
    const req = (isHttps ? https : http).request(target, {
      method: init.method,
      headers,
      agent: isHttps ? agents.https : agents.http,
    });
    const onAbort = () => req.destroy(new Error('aborted'));
    init.signal.addEventListener('abort', onAbort, { once: true });
    const cleanup = () => init.signal.removeEventListener('abort', onAbort);
    req.once('error', (error) => {
      cleanup();
      reject(error);
    });
    req.once('response', (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400) {
        res.resume();
        cleanup();
        reject(new Error(`redirect (${status}) refused`));
        return;
      }
      // The body is read at once (it is small JSON); text() hands it over or the failure to read it.
      const chunks: Buffer[] = [];
      let size = 0;
      const body = new Promise<string>((resolveBody, rejectBody) => {
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_PROVIDER_BODY_BYTES) {
            cleanup();
            rejectBody(new Error(`response larger than ${MAX_PROVIDER_BODY_BYTES} bytes`));
            res.destroy();
            return;
          }
          chunks.push(c);
        });
        res.once('end', () => {
          cleanup();
          resolveBody(Buffer.concat(chunks).toString('utf8'));
        });
        res.once('error', (error) => {
          cleanup();
          rejectBody(error);
        });
        res.once('close', () => {
          if (!res.complete) {
            cleanup();
            rejectBody(new Error('response cut off'));
          }
        });
      });
      body.catch(() => undefined); // read (or not) through text(); never an unhandled rejection
      resolve({ status, text: () => body });
    });
    req.end(init.body);
  });
