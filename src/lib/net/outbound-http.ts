import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { type Allowlist, classifyAddress } from './address-policy.ts';

/**
 * The only way Tributary sends HTTP to a merchant-chosen URL (webhooks and callbacks), built so
 * that the address it *connects to* is one it has checked (SSRF defence, issue 4):
 *
 * - IP literals (any notation: WHATWG URL parsing has already turned `0x7f.1` or `2130706433`
 *   into dotted form) are classified before any socket is opened;
 * - names are resolved by our own `lookup`, every answer is classified, and the socket connects
 *   to an address from that checked list (never to a second, unchecked resolution);
 * - after connecting, the socket's remote address is classified once more (defence in depth);
 * - redirects are never followed (node:http does not follow them; a 3xx is just a status);
 * - connect and response deadlines are enforced; at most `maxResponseBytes` of the answer is kept.
 *
 * Non-public addresses (private, loopback, link-local, metadata, …) are refused unless the
 * operator allow-lists the host name or the address (WEBHOOK_ALLOWLIST).
 */
export interface ResolvedAddress {
  address: string;
  family: number;
}
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
      if (error) reject(error);
      else resolve(addresses);
    });
  });

export class BlockedAddressError extends Error {
  override name = 'BlockedAddressError';
  readonly code = 'ERR_BLOCKED_ADDRESS';
}

class DeadlineError extends Error {
  override name = 'DeadlineError';
}

export type AddressVerdict = { allowed: true } | { allowed: false; reason: string };

/** Pure: may we connect to `address`, reached through the name `hostname`? */
export function addressVerdict(hostname: string, address: string, allowlist: Allowlist): AddressVerdict {
  if (allowlist.allowsHost(hostname) || allowlist.allowsAddress(address)) return { allowed: true };
  const cls = classifyAddress(address);
  return cls.public ? { allowed: true } : { allowed: false, reason: cls.reason };
}

/**
 * A `lookup` for sockets that resolves with `resolver` and refuses the name when ANY answer is
 * not allowed: a name with one public and one private answer is refused outright, because which
 * answer a socket ends up using is not ours to predict (happy eyeballs, retries).
 */
export function createSafeLookup(resolver: Resolver, allowlist: Allowlist): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    resolver(hostname).then(
      (addresses) => {
        if (addresses.length === 0) {
          callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
          return;
        }
        for (const a of addresses) {
          const verdict = addressVerdict(hostname, a.address, allowlist);
          if (!verdict.allowed) {
            callback(new BlockedAddressError(`${hostname} resolves to a refused address (${verdict.reason})`), '', 0);
            return;
          }
        }
        const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
        const usable = family === 4 || family === 6 ? addresses.filter((a) => a.family === family) : addresses;
        const first = usable[0];
        if (first === undefined) {
          callback(Object.assign(new Error(`${hostname} has no IPv${String(family)} address`), { code: 'ENOTFOUND' }), '', 0);
          return;
        }
        if (options.all === true) callback(null, usable as LookupAddress[]);
        else callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

export interface OutboundRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  connectTimeoutMs: number;
  /** Deadline for the whole exchange: connect, send, status line and the kept part of the body. */
  timeoutMs: number;
}

export type OutboundResult =
  | { kind: 'response'; status: number; headers: http.IncomingHttpHeaders; body: string; durationMs: number }
  | { kind: 'timeout' | 'network_error' | 'blocked'; error: string; durationMs: number };

export interface OutboundClient {
  post(request: OutboundRequest): Promise<OutboundResult>;
  close(): void;
}

export interface OutboundClientOptions {
  allowlist: Allowlist;
  resolver?: Resolver;
  /** Bytes of a response body kept for the attempt log. */
  maxResponseBytes?: number;
  maxSocketsPerHost: number;
  maxSockets: number;
}

/** A body larger than this is not read to the end: the socket is dropped instead of reused. */
const MAX_DRAIN_BYTES = 64 * 1024;
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE']);

export function createOutboundClient(options: OutboundClientOptions): OutboundClient {
  const lookup = createSafeLookup(options.resolver ?? systemResolver, options.allowlist);
  const maxResponseBytes = options.maxResponseBytes ?? 2048;
  // Keep-alive: a busy endpoint gets one TLS handshake per socket, not per event.
  const agentOptions = { keepAlive: true, maxSockets: options.maxSocketsPerHost, maxTotalSockets: options.maxSockets };
  const agents = { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) };

  function attempt(request: OutboundRequest, url: URL): Promise<OutboundResult & { reusedReset?: boolean }> {
    const started = performance.now();
    const elapsed = () => Math.max(0, Math.round(performance.now() - started));
    const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    // A literal address never reaches `lookup` (net connects to it directly): check it here.
    if (isIP(hostname) !== 0) {
      const verdict = addressVerdict(hostname, hostname, options.allowlist);
      if (!verdict.allowed)
        return Promise.resolve({ kind: 'blocked', error: `address refused: ${verdict.reason}`, durationMs: 0 });
    }
    const isHttps = url.protocol === 'https:';
    return new Promise((resolve) => {
      let settled = false;
      const timers: NodeJS.Timeout[] = [];
      const finish = (result: OutboundResult & { reusedReset?: boolean }) => {
        if (settled) return;
        settled = true;
        for (const t of timers) clearTimeout(t);
        resolve(result);
      };
      const req = (isHttps ? https : http).request({
        method: 'POST',
        protocol: url.protocol,
        hostname,
        port: url.port === '' ? (isHttps ? 443 : 80) : Number(url.port),
        path: `${url.pathname}${url.search}`,
        headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
        agent: isHttps ? agents.https : agents.http,
        lookup,
      });
      timers.push(
        setTimeout(() => req.destroy(new DeadlineError(`no complete answer within ${request.timeoutMs} ms`)), request.timeoutMs),
      );
      req.on('socket', (socket: Socket) => {
        if (!socket.connecting) return; // a kept-alive socket, connected (and checked) earlier
        const connectTimer = setTimeout(
          () => req.destroy(new DeadlineError(`not connected within ${request.connectTimeoutMs} ms`)),
          request.connectTimeoutMs,
        );
        timers.push(connectTimer);
        socket.once('connect', () => {
          clearTimeout(connectTimer);
          const remote = socket.remoteAddress;
          const verdict = remote === undefined ? undefined : addressVerdict(hostname, remote, options.allowlist);
          if (verdict !== undefined && !verdict.allowed) {
            req.destroy(new BlockedAddressError(`connected address refused: ${verdict.reason}`));
          }
        });
      });
      req.on('response', (res) => {
        const kept: Buffer[] = [];
        let keptBytes = 0;
        let total = 0;
        const done = () =>
          finish({
            kind: 'response',
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(kept).toString('utf8'),
            durationMs: elapsed(),
          });
        res.on('data', (chunk: Buffer) => {
          total += chunk.length;
          if (keptBytes < maxResponseBytes) {
            const slice = chunk.subarray(0, maxResponseBytes - keptBytes);
            kept.push(slice);
            keptBytes += slice.length;
          }
          // The status is all we need; do not let a huge body hold the worker.
          if (total > MAX_DRAIN_BYTES) {
            done();
            res.destroy();
          }
        });
        res.on('end', done);
        // A body cut short still answered with a status: that status counts.
        res.on('close', done);
        res.on('error', done);
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (error instanceof DeadlineError) {
          finish({ kind: 'timeout', error: error.message, durationMs: elapsed() });
        } else if (error instanceof BlockedAddressError) {
          finish({ kind: 'blocked', error: error.message, durationMs: elapsed() });
        } else {
          const code = typeof error.code === 'string' ? error.code : undefined;
          finish({
            kind: 'network_error',
            error: code === undefined ? error.message : `${code}: ${error.message}`,
            durationMs: elapsed(),
            // A kept-alive socket the server had already closed: not the receiver's fault.
            reusedReset:
              req.reusedSocket && (code === undefined || RESET_CODES.has(code) || /socket hang up/.test(error.message)),
          });
        }
      });
      req.end(request.body);
    });
  }

  return {
    async post(request) {
      const url = new URL(request.url);
      const first = await attempt(request, url);
      if (first.kind === 'network_error' && first.reusedReset === true) {
        const { reusedReset: _ignored, ...second } = await attempt(request, url);
        return second;
      }
      const { reusedReset: _ignored, ...result } = first as OutboundResult & { reusedReset?: boolean };
      return result as OutboundResult;
    },
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}
