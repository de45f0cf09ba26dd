import { lookup } from 'node:dns/promises';
import { AuthenticationError, type Event, type ListEventsResponse, TributaryError } from '../../sdk/src/index.ts';
import { classifyAddress } from '../lib/net/address-policy.ts';
import { generateWebhookSecret, signatureHeader, WEBHOOK_SECRET_PREFIX } from '../modules/webhooks/webhook-signature.ts';
import { type Command, type CommandContext, stringOpt } from './cli-command.ts';
import { CliUsageError, type Output } from './cli-output.ts';
import { objectIdOf } from './events-commands.ts';

/**
 * `tributary listen [--forward-to URL]`: the merchant's events on a developer's machine, like
 * `stripe listen`. It polls the event log (GET /event) with the API key, so it needs no webhook
 * endpoint and works behind NAT (an endpoint could not point at a private address anyway), and
 * POSTs each new event to a loopback URL signed per Standard Webhooks with a local `whsec_` secret
 * it prints, using the server's own signing code. docs/cli.md has the design.
 */

const POLL_INTERVAL_MS = 1_000;
const PAGE_LIMIT = 100;
/** Bounds one poll: at most this many pages (newest first) are read. */
const MAX_PAGES_PER_POLL = 20;
/**
 * Each poll looks this far back (by the events' own `created_at`, the server's clock) below the
 * newest event seen, and forwards what it has not seen yet. An event is stamped when its
 * transaction writes it and becomes visible when that transaction commits, so one stamped a moment
 * before an already-seen event can appear later: the look-back catches it. Seen ids are kept for
 * the same window only, so memory stays bounded.
 */
const LOOKBACK_MS = 60_000;
const FORWARD_TIMEOUT_MS = 10_000;
/** A failed forward is retried after these waits (4 tries in all), then reported and skipped. */
const FORWARD_RETRY_DELAYS_MS = [500, 1_000, 2_000] as const;
const USER_AGENT = 'tributary-cli-listen/0.1';

export type PageFetcher = (startingAfter: string | undefined) => Promise<Pick<ListEventsResponse, 'data' | 'has_more'>>;

const createdMs = (e: Pick<Event, 'created_at'>) => Date.parse(e.created_at);

/** Oldest first, ties by id (ids are time-ordered). */
const chronological = (a: Event, b: Event) => createdMs(a) - createdMs(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Which events of the log are new since the session started. `prime()` marks everything up to the
 * newest event at start as old (`floorMs`: nothing stamped before it is forwarded); each `poll()`
 * returns the unseen events, oldest first, reading newest-first pages down to the look-back.
 */
export class EventWindow {
  readonly #seen = new Map<string, number>();
  #highWaterMs: number | undefined;
  #floorMs = Number.NEGATIVE_INFINITY;
  #fetch: PageFetcher;

  constructor(fetch: PageFetcher) {
    this.#fetch = fetch;
  }

  /** Reads the newest page only: everything stamped before its newest event predates the session. */
  async prime(): Promise<void> {
    const page = await this.#fetch(undefined);
    this.#remember(page.data);
    if (this.#highWaterMs !== undefined) this.#floorMs = this.#highWaterMs;
  }

  async poll(): Promise<Event[]> {
    const fresh = await this.#read();
    this.#remember(fresh);
    return fresh.sort(chronological);
  }

  get seenCount(): number {
    return this.#seen.size;
  }

  async #read(): Promise<Event[]> {
    const cutMs = Math.max(
      this.#floorMs,
      this.#highWaterMs === undefined ? Number.NEGATIVE_INFINITY : this.#highWaterMs - LOOKBACK_MS,
    );
    const fresh: Event[] = [];
    let after: string | undefined;
    for (let pages = 0; pages < MAX_PAGES_PER_POLL; pages += 1) {
      const page = await this.#fetch(after);
      let reachedCut = false;
      for (const e of page.data) {
        if (createdMs(e) < cutMs) {
          reachedCut = true;
          break;
        }
        if (!this.#seen.has(e.id)) fresh.push(e);
      }
      const last = page.data.at(-1);
      if (reachedCut || !page.has_more || last === undefined || last.id === after) break;
      after = last.id;
    }
    return fresh;
  }

  #remember(events: readonly Event[]): void {
    for (const e of events) {
      const at = createdMs(e);
      this.#seen.set(e.id, at);
      if (this.#highWaterMs === undefined || at > this.#highWaterMs) this.#highWaterMs = at;
    }
    if (this.#highWaterMs === undefined) return;
    const keepFromMs = this.#highWaterMs - LOOKBACK_MS;
    for (const [id, at] of this.#seen) if (at < keepFromMs) this.#seen.delete(id);
  }
}

/** `payment.succeeded`, `payment.*` or `*`. */
const TYPE_PATTERN = /^(\*|[a-z_]+(\.[a-z_]+)*(\.\*)?)$/;

export function parseEventFilter(text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  const types = text
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
  if (types.length === 0) throw new CliUsageError('--events needs at least one event type');
  for (const t of types)
    if (!TYPE_PATTERN.test(t)) throw new CliUsageError(`--events: ${JSON.stringify(t)} is not an event type`);
  return types.includes('*') ? undefined : types;
}

export function matchesFilter(type: string, filter: readonly string[] | undefined): boolean {
  if (filter === undefined) return true;
  return filter.some((f) => (f.endsWith('.*') ? type.startsWith(f.slice(0, -1)) : type === f));
}

function isLoopbackAddress(address: string): boolean {
  const verdict = classifyAddress(address);
  return !verdict.public && verdict.reason.startsWith('loopback');
}

/**
 * The forward target must be this machine: events carry customer data (emails, amounts), and a
 * developer tool must not become a relay to anywhere. `localhost` counts when every address it
 * resolves to is loopback.
 */
export async function checkForwardUrl(raw: string): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliUsageError(`--forward-to ${JSON.stringify(raw)} is not a URL (e.g. http://127.0.0.1:3000/webhooks)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliUsageError('--forward-to must be an http(s) URL');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const refuse = () =>
    new CliUsageError(
      `--forward-to must point at this machine (localhost, 127.0.0.1 or [::1]), not ${JSON.stringify(url.hostname)}`,
    );
  if (host.toLowerCase() === 'localhost') {
    let addresses: { address: string }[];
    try {
      addresses = await lookup(host, { all: true });
    } catch {
      throw refuse();
    }
    if (addresses.length === 0 || !addresses.every((a) => isLoopbackAddress(a.address))) throw refuse();
    return url;
  }
  if (!isLoopbackAddress(host)) throw refuse();
  return url;
}

/** A `whsec_` secret whose key part is 24-64 bytes of base64, as the Standard Webhooks spec asks. */
export function checkSecret(raw: string): string {
  const key = raw.startsWith(WEBHOOK_SECRET_PREFIX) ? raw.slice(WEBHOOK_SECRET_PREFIX.length) : '';
  const bytes = /^[A-Za-z0-9+/]+={0,2}$/.test(key) ? Buffer.from(key, 'base64').length : 0;
  if (bytes < 24 || bytes > 64) throw new CliUsageError('--secret must be whsec_ followed by 24-64 bytes in base64');
  return raw;
}

export interface ForwardResult {
  ok: boolean;
  /** One entry per try: the HTTP status, or `timeout` / `error` when no answer came. */
  statuses: (number | 'timeout' | 'error')[];
  durationMs: number;
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * POSTs one event, signed as Tributary signs its deliveries (`webhook-id` = the event id, so a
 * receiver's dedupe works as in production), re-signed with a fresh timestamp on every try.
 */
export async function forwardEvent(url: URL, secret: string, event: Event, signal: AbortSignal): Promise<ForwardResult> {
  const body = JSON.stringify(event);
  const statuses: ForwardResult['statuses'] = [];
  const started = performance.now();
  for (let attempt = 0; ; attempt += 1) {
    const timestamp = Math.floor(Date.now() / 1000);
    const timeout = AbortSignal.timeout(FORWARD_TIMEOUT_MS);
    try {
      const res = await fetch(url, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
          'webhook-id': event.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signatureHeader([secret], event.id, timestamp, body),
        },
        body,
        signal: AbortSignal.any([signal, timeout]),
      });
      statuses.push(res.status);
      await res.body?.cancel(); // the answer's body is not used; do not read an unbounded one
      if (res.status >= 200 && res.status < 300)
        return { ok: true, statuses, durationMs: Math.round(performance.now() - started) };
    } catch (error) {
      if (signal.aborted) throw error;
      statuses.push(timeout.aborted ? 'timeout' : 'error');
    }
    const delayMs = FORWARD_RETRY_DELAYS_MS[attempt];
    if (delayMs === undefined || signal.aborted)
      return { ok: false, statuses, durationMs: Math.round(performance.now() - started) };
    await abortableSleep(delayMs, signal);
  }
}

function eventLine(out: Output, e: Event, forwarded: ForwardResult | undefined, url: URL | undefined): string {
  const head = `${out.paint.dim(e.created_at)}  ${out.paint.cyan(e.type.padEnd(22))}  ${e.id}  ${objectIdOf(e)}`;
  if (forwarded === undefined || url === undefined) return head;
  const statuses = forwarded.statuses.map((s) =>
    typeof s === 'number' && s >= 200 && s < 300 ? out.paint.green(String(s)) : out.paint.red(String(s)),
  );
  const tail = forwarded.ok ? '' : out.paint.red(' (gave up)');
  return `${head}  → [${statuses.join(' ')}] POST ${url.toString()}${tail}`;
}

export const LISTEN_COMMAND: Command = {
  name: 'listen',
  synopsis: '[--forward-to http://127.0.0.1:PORT/PATH] [--events type,type] [--secret whsec_…]',
  summary: 'print new events and forward them, signed with a local secret, to a local URL (^C to stop)',
  options: { 'forward-to': { type: 'string' }, events: { type: 'string' }, secret: { type: 'string' } },
  args: { min: 0, max: 0 },
  run: listen,
};

async function listen(ctx: CommandContext): Promise<void> {
  const { out } = ctx;
  const forwardText = stringOpt(ctx, 'forward-to');
  const url = forwardText === undefined ? undefined : await checkForwardUrl(forwardText);
  const filter = parseEventFilter(stringOpt(ctx, 'events'));
  const secretText = stringOpt(ctx, 'secret');
  const secret = secretText === undefined ? generateWebhookSecret() : checkSecret(secretText);
  const client = ctx.client();

  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const signal = controller.signal;
  // One event type (or group) is filtered by the API; several are filtered here.
  const serverType = filter?.length === 1 ? filter[0] : undefined;
  const window = new EventWindow((after) =>
    client.events.list(
      {
        limit: PAGE_LIMIT,
        ...(serverType === undefined ? {} : { type: serverType }),
        ...(after === undefined ? {} : { starting_after: after }),
      },
      { signal },
    ),
  );
  const counts = { received: 0, forwarded: 0, failed: 0 };
  // Said once per outage, not once a second: the code of the failure being waited out.
  let failing: string | undefined;
  try {
    out.progress('connecting…');
    await window.prime(); // an API error here (bad key, server down) ends the command with it
    out.jsonLine({ kind: 'ready', secret, forward_to: url?.toString() ?? null, events: filter ?? ['*'] });
    out.line(
      url === undefined
        ? `Ready! Listening for events (^C to quit). Add --forward-to http://127.0.0.1:PORT/PATH to forward them.`
        : `Ready! Forwarding events to ${url.toString()}. Your webhook signing secret is ${out.paint.bold(secret)} (^C to quit)`,
    );
    while (!signal.aborted) {
      let fresh: Event[] = [];
      try {
        fresh = await window.poll();
        if (failing !== undefined) out.warn('polling events works again');
        failing = undefined;
      } catch (error) {
        if (signal.aborted) break;
        // A revoked key will not come back; anything else (server restarting, 503, 429 after the
        // SDK's own retries) is worth waiting out.
        if (!(error instanceof TributaryError) || error instanceof AuthenticationError) throw error;
        if (failing !== error.code) {
          out.warn(`polling events failed (${error.code}: ${error.message}); trying again every second`);
          out.jsonLine({ kind: 'poll_error', code: error.code, message: error.message, request_id: error.requestId ?? null });
        }
        failing = error.code;
      }
      for (const event of fresh) {
        if (signal.aborted) break;
        if (!matchesFilter(event.type, filter)) continue;
        counts.received += 1;
        let forwarded: ForwardResult | undefined;
        if (url !== undefined) {
          try {
            forwarded = await forwardEvent(url, secret, event, signal);
          } catch (error) {
            if (signal.aborted) break;
            throw error;
          }
          if (forwarded.ok) counts.forwarded += 1;
          else counts.failed += 1;
        }
        out.jsonLine({
          kind: 'event',
          event,
          forward:
            forwarded === undefined
              ? null
              : { url: url?.toString(), ok: forwarded.ok, statuses: forwarded.statuses, duration_ms: forwarded.durationMs },
        });
        out.line(eventLine(out, event, forwarded, url));
      }
      await abortableSleep(POLL_INTERVAL_MS, signal);
    }
  } finally {
    process.removeListener('SIGINT', stop);
    process.removeListener('SIGTERM', stop);
  }
  out.jsonLine({ kind: 'stopped', ...counts });
  out.line(
    `Stopped. ${counts.received} event${counts.received === 1 ? '' : 's'}${url === undefined ? '' : `, ${counts.forwarded} forwarded, ${counts.failed} failed`}.`,
  );
}
