import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A webhook receiver on a loopback port whose answers the test decides (like Svix's test
 * receiver): a status, headers and a body; `hold` to keep the request open until the test
 * releases it (a slow receiver, or a worker's in-flight batch); `destroy` to drop the connection.
 * It records every request with its exact body bytes and headers.
 */
export interface ReceivedRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Set once the request got an answer (false while held; stays false if the sender vanished). */
  answered: boolean;
  /** The sender closed the connection before an answer (e.g. it was killed or timed out). */
  abandoned: boolean;
}

export type Answer = { status: number; headers?: Record<string, string>; body?: string } | 'hold' | 'destroy';

export interface Receiver {
  readonly origin: string;
  url(path?: string): string;
  readonly requests: ReceivedRequest[];
  /** Decides each answer; default 200 `ok`. */
  respond: (request: ReceivedRequest) => Answer;
  /** Requests being held, oldest first. */
  readonly held: ReceivedRequest[];
  /** Answers every held request (those whose sender is gone are just dropped). */
  release(answer?: { status: number; headers?: Record<string, string>; body?: string }): number;
  /** Most requests open at the same time, per path. */
  maxConcurrent(path: string): number;
  close(): Promise<void>;
}

export async function startReceiver(host = '127.0.0.1'): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const heldResponses = new Map<ReceivedRequest, http.ServerResponse>();
  const open = new Map<string, number>();
  const peak = new Map<string, number>();
  const enter = (path: string) => {
    const n = (open.get(path) ?? 0) + 1;
    open.set(path, n);
    peak.set(path, Math.max(peak.get(path) ?? 0, n));
  };
  const leave = (path: string) => open.set(path, (open.get(path) ?? 1) - 1);

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const record: ReceivedRequest = {
        path,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        answered: false,
        abandoned: false,
      };
      requests.push(record);
      enter(path);
      let left = false;
      const done = () => {
        if (left) return;
        left = true;
        leave(path);
      };
      res.on('close', () => {
        if (!record.answered) record.abandoned = true;
        heldResponses.delete(record);
        done();
      });
      const answer = receiver.respond(record);
      if (answer === 'hold') {
        heldResponses.set(record, res);
        return;
      }
      if (answer === 'destroy') {
        req.socket.destroy();
        return;
      }
      record.answered = true;
      res.writeHead(answer.status, answer.headers ?? {});
      res.end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  const receiver: Receiver = {
    origin,
    url: (path = '/hook') => `${origin}${path}`,
    requests,
    respond: () => ({ status: 200, body: 'ok' }),
    get held() {
      return [...heldResponses.keys()];
    },
    release(answer = { status: 200, body: 'ok' }) {
      let n = 0;
      for (const [record, res] of [...heldResponses]) {
        heldResponses.delete(record);
        if (res.destroyed || res.writableEnded) continue;
        record.answered = true;
        res.writeHead(answer.status, answer.headers ?? {});
        res.end(answer.body ?? '');
        n += 1;
      }
      return n;
    },
    maxConcurrent: (path) => peak.get(path) ?? 0,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return receiver;
}
