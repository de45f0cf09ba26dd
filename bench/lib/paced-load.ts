import net from 'node:net';
import type autocannon from 'autocannon';
import type { LoadOptions, LoadRequest, LoadResult } from './load.ts';
import { LatencyRecorder, windowSummary } from './stats.ts';

/**
 * An open-loop load at a stated rate with evenly spaced arrivals: request i is due at
 * start + i / rate, and goes out then whether or not earlier ones were answered (at most
 * `connections` on the wire; the rest wait for a socket, and that wait counts in their latency,
 * which runs from the request's due time, not from when a socket was free — no coordinated
 * omission).
 *
 * Not autocannon's `overallRate`: that one lets each connection send its quota for the second
 * as fast as answers come back, then pause until the next second, so "150 requests/s" arrives as
 * a burst of 150 at the top of every second (seen in the dispatch scenario: the fan-out found
 * nothing for ~800 ms, then ~90 events at once). A latency target at a stated rate means the rate
 * spread over the second.
 *
 * HTTP/1.1 keep-alive over `node:net` with its own small response reader, not `node:http`: the
 * generator shares the machine's cores with the server and PostgreSQL, and every pause of its
 * own (a collection, a busy loop) delays each request due meanwhile and is counted against the
 * server. With `node:http` it collected ~6 times a second at 4,000 requests/s, 5–8 ms a time,
 * and the slowest 1 % of a paced GET window came in clusters right after its longest collections
 * (docs/benchmarks.md, issue 27's sixth session). This reader allocates a request's bytes and,
 * only where a request reads its answer (`onResponse`), the body.
 */
export async function runPacedLoad(options: LoadOptions & { rate: number }): Promise<LoadResult> {
  const target = paceTarget(options);
  const tally = new PacedTally(options);
  let template = 0;
  const { failed } = await pace({
    ...target,
    next: (dueMs) => {
      const spec = options.requests[template++ % options.requests.length];
      if (spec === undefined) throw new Error('runPacedLoad: no requests');
      return pending(spec, dueMs, target.hostHeader);
    },
    onAnswer: (status, latencyMs, dueInWindowMs) => tally.record(status, latencyMs, dueInWindowMs),
  });
  return tally.result(failed);
}

/** Where and how a paced window goes, from a load's options (the first URL if several). */
export function paceTarget(options: LoadOptions & { rate: number }): Omit<PaceOptions, 'next' | 'onAnswer'> & {
  hostHeader: string;
} {
  const base = new URL(Array.isArray(options.url) ? (options.url[0] ?? '') : options.url);
  return {
    host: base.hostname.replace(/^\[|\]$/g, ''),
    port: Number(base.port || 80),
    hostHeader: base.host,
    connections: options.connections,
    seconds: options.seconds,
    rate: options.rate,
    timeoutMs: (options.timeoutSeconds ?? 10) * 1000,
  };
}

/** A paced window's answers as a load result: latencies, statuses, the unexpected ones. */
export class PacedTally {
  private readonly latencies = new LatencyRecorder();
  private readonly statusCounts: Record<string, number> = {};
  private unexpected = 0;
  private readonly expect: (status: number) => boolean;
  constructor(private readonly options: LoadOptions) {
    this.expect = options.expect ?? ((s: number) => s >= 200 && s < 300);
  }
  record(status: number, latencyMs: number, dueInWindowMs: number): void {
    this.latencies.record(latencyMs);
    this.options.onSample?.(dueInWindowMs, latencyMs);
    this.statusCounts[status] = (this.statusCounts[status] ?? 0) + 1;
    if (!this.expect(status)) this.unexpected += 1;
  }
  result(failed: number): LoadResult {
    return {
      ...windowSummary(this.latencies, this.options.seconds),
      errors: this.unexpected + failed,
      statusCounts: this.statusCounts,
    };
  }
}

/** One request on its way: its bytes, when it was due, and what to do with its answer's body. */
export interface Pending {
  dueMs: number;
  bytes: Buffer;
  /** Called with the answer's body (read only for requests that have it). */
  onBody?: (status: number, body: string) => void;
}

export interface PaceOptions {
  host: string;
  port: number;
  connections: number;
  seconds: number;
  rate: number;
  timeoutMs: number;
  /** The request due at `dueMs` (performance.now() time). */
  next: (dueMs: number) => Pending;
  /** Every answered request: its status, latency from its due time, and its due time in the window. */
  onAnswer: (status: number, latencyMs: number, dueInWindowMs: number) => void;
  /**
   * The generator itself late: its loop woke `lateMs` (at least LATE_MS) after a request was due,
   * the request due `dueInWindowMs` into the window. Whatever held the generator's thread (its own
   * collection, the machine not running it) delays every request due meanwhile, and the latency of
   * each counts it against the server.
   */
  onLate?: (dueInWindowMs: number, lateMs: number) => void;
}

/** The generator's own lateness worth reporting (its loop's normal wake-up is well under 1 ms late). */
export const LATE_MS = 5;

/**
 * The open loop itself, whatever builds the requests: request i is due at start + i / rate and
 * is handed to a free connection then (or waits for one, counted in its latency).
 */
export async function pace(o: PaceOptions): Promise<{ failed: number }> {
  let failed = 0;
  let outstanding = 0;
  let allSent = false;
  let drained: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    drained = resolve;
  });
  const intervalMs = 1000 / o.rate;
  const startMs = performance.now();
  const endMs = startMs + o.seconds * 1000;

  const settle = (p: Pending, status: number | null, body: string) => {
    if (status === null) failed += 1;
    else {
      o.onAnswer(status, performance.now() - p.dueMs, p.dueMs - startMs);
      p.onBody?.(status, body);
    }
    outstanding -= 1;
    if (allSent && outstanding === 0) drained();
  };

  const queue: Pending[] = [];
  const idle: Connection[] = [];
  const open = new Set<Connection>();
  const pump = () => {
    while (queue.length > 0) {
      let c = idle.pop();
      if (c === undefined) {
        if (open.size >= o.connections) return;
        c = new Connection(
          o.host,
          o.port,
          settle,
          (gone) => {
            open.delete(gone);
            const at = idle.indexOf(gone);
            if (at >= 0) idle.splice(at, 1);
            pump();
          },
          (free) => {
            idle.push(free);
            pump();
          },
        );
        open.add(c);
      }
      c.send(queue.shift() as Pending);
    }
  };
  const sweep = setInterval(
    () => {
      const now = performance.now();
      for (const c of open) c.expire(now, o.timeoutMs);
    },
    Math.max(10, Math.min(250, o.timeoutMs / 4)),
  );

  let issued = 0;
  const dueMs = () => startMs + issued * intervalMs;
  try {
    while (dueMs() < endMs) {
      // Everything due by now goes out now (a late timer sends the backlog at once, on schedule).
      const now = performance.now();
      const lateMs = now - dueMs();
      if (lateMs >= LATE_MS) o.onLate?.(dueMs() - startMs, lateMs);
      for (; dueMs() <= now && dueMs() < endMs; issued += 1) {
        outstanding += 1;
        queue.push(o.next(dueMs()));
      }
      pump();
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.min(dueMs(), endMs) - performance.now())));
    }
    allSent = true;
    if (outstanding > 0) await done;
  } finally {
    clearInterval(sweep);
    for (const c of open) c.close();
  }
  return { failed };
}

/** How many requests a window of `seconds` at `rate` issues (pace's loop: due times before its end). */
export function requestsOfWindow(seconds: number, rate: number): number {
  return Math.ceil(seconds * rate);
}

/** The bytes of one request as its spec builds it (autocannon's setupRequest contract). */
export function requestBytes(spec: LoadRequest, hostHeader: string, context: Record<string, unknown>): Buffer {
  const request = (spec.setupRequest?.({ ...spec } as autocannon.Request, context) ?? spec) as {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
  };
  const body = request.body === undefined ? undefined : Buffer.from(request.body);
  let head = `${request.method ?? spec.method} ${request.path ?? spec.path} HTTP/1.1\r\nhost: ${hostHeader}\r\n`;
  for (const [name, value] of Object.entries(request.headers ?? {})) head += `${name}: ${value}\r\n`;
  head += body === undefined ? '\r\n' : `content-length: ${body.length}\r\n\r\n`;
  return body === undefined ? Buffer.from(head, 'latin1') : Buffer.concat([Buffer.from(head, 'latin1'), body]);
}

function pending(spec: LoadRequest, dueMs: number, hostHeader: string): Pending {
  const context: Record<string, unknown> = {};
  const bytes = requestBytes(spec, hostHeader, context);
  const onResponse = spec.onResponse;
  return onResponse === undefined
    ? { dueMs, bytes }
    : { dueMs, bytes, onBody: (status, body) => onResponse(status, body, context) };
}

const EMPTY = Buffer.alloc(0);
const HEAD_END = Buffer.from('\r\n\r\n');
const CRLF = Buffer.from('\r\n');

/**
 * One keep-alive connection with at most one request on it. Reads an answer's status line and
 * headers, then its body by content-length, by chunks, or to the connection's close.
 */
class Connection {
  private readonly socket: net.Socket;
  private current: Pending | null = null;
  private sentAt = 0;
  private buf: Buffer = EMPTY;
  private status = 0;
  /** Body framing once the head is read: bytes still due, 'chunked', 'close', or null (reading the head). */
  private framing: number | 'chunked' | 'close' | null = null;
  private keepBody = false;
  private body: Buffer[] = [];
  private closeAfter = false;
  private ended = false;

  constructor(
    host: string,
    port: number,
    private readonly settle: (p: Pending, status: number | null, body: string) => void,
    private readonly onGone: (c: Connection) => void,
    private readonly onFree: (c: Connection) => void,
  ) {
    this.socket = net.connect({ host, port });
    this.socket.setNoDelay(true);
    this.socket.on('data', (chunk: Buffer) => this.read(chunk));
    this.socket.on('error', () => this.fail());
    this.socket.on('close', () => {
      if (this.framing === 'close' && this.current !== null) {
        this.closeAfter = true; // the body ran to the close: answered
        this.finish();
      }
      this.fail();
    });
  }

  send(p: Pending): void {
    this.current = p;
    this.sentAt = performance.now();
    this.buf = EMPTY;
    this.framing = null;
    this.keepBody = p.onBody !== undefined;
    this.body = [];
    this.socket.write(p.bytes);
  }

  /** An answer later than the timeout: the request failed and the connection goes. */
  expire(now: number, timeoutMs: number): void {
    if (this.current !== null && now - this.sentAt > timeoutMs) this.socket.destroy();
  }

  close(): void {
    this.ended = true;
    this.socket.destroy();
  }

  private fail(): void {
    if (this.ended) return;
    this.ended = true;
    const p = this.current;
    this.current = null;
    if (p !== null) this.settle(p, null, '');
    this.onGone(this);
  }

  private read(chunk: Buffer): void {
    if (this.current === null) return; // nothing asked: ignore
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    if (this.framing === null) {
      const end = this.buf.indexOf(HEAD_END);
      if (end < 0) return;
      const head = this.buf.toString('latin1', 0, end).toLowerCase();
      this.buf = this.buf.subarray(end + 4);
      this.status = Number(head.slice(9, 12));
      this.closeAfter = /\r\nconnection: *close/.test(head);
      const length = /\r\ncontent-length: *(\d+)/.exec(head);
      if (this.status === 204 || this.status === 304) this.framing = 0;
      else if (/\r\ntransfer-encoding:[^\r]*chunked/.test(head)) this.framing = 'chunked';
      else if (length !== null) this.framing = Number(length[1]);
      else this.framing = 'close';
    }
    if (typeof this.framing === 'number') {
      const take = Math.min(this.framing, this.buf.length);
      if (this.keepBody && take > 0) this.body.push(this.buf.subarray(0, take));
      this.framing -= take;
      this.buf = this.buf.subarray(take);
      if (this.framing === 0) this.finish();
    } else if (this.framing === 'chunked') {
      this.readChunks();
    } else {
      if (this.keepBody) this.body.push(this.buf); // to the close
      this.buf = EMPTY;
    }
  }

  /** Whole chunks off the front of the buffer; the last (size 0) and its empty trailer end the body. */
  private readChunks(): void {
    for (;;) {
      const line = this.buf.indexOf(CRLF);
      if (line < 0) return;
      const size = Number.parseInt(this.buf.toString('latin1', 0, line), 16);
      if (size === 0) {
        const trailerEnd = this.buf.indexOf(HEAD_END, line);
        if (trailerEnd !== line) return; // trailers are not sent to us; wait for the final CRLF
        this.finish();
        return;
      }
      if (this.buf.length < line + 2 + size + 2) return;
      if (this.keepBody) this.body.push(this.buf.subarray(line + 2, line + 2 + size));
      this.buf = this.buf.subarray(line + 2 + size + 2);
    }
  }

  private finish(): void {
    const p = this.current;
    if (p === null) return;
    this.current = null;
    this.framing = null;
    const body = this.keepBody ? Buffer.concat(this.body).toString('utf8') : '';
    this.body = [];
    this.settle(p, this.status, body);
    if (this.closeAfter) {
      this.ended = true;
      this.socket.destroy();
      this.onGone(this);
    } else this.onFree(this);
  }
}
