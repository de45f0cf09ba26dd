import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback HTTP proxy in front of a real server that can lose answers: for the requests that
 * `drop` picks, it forwards the request, waits until the server has answered in full (so the
 * work is done), then destroys the client's connection instead of passing the answer on — the
 * client sees a dropped connection after the server committed. Every request is recorded.
 */
export interface SeenRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The status the server answered with. */
  upstreamStatus: number;
  /** The proxy dropped the answer. */
  dropped: boolean;
}

export interface DropProxy {
  readonly url: string;
  readonly seen: SeenRequest[];
  /** Decides per request (its 0-based index among all requests) whether to lose the answer. */
  drop: (index: number, req: http.IncomingMessage) => boolean;
  close(): Promise<void>;
}

export async function startDropProxy(target: string): Promise<DropProxy> {
  const upstream = new URL(target);
  const agent = new http.Agent({ keepAlive: false });
  const seen: SeenRequest[] = [];
  let count = 0;
  const server = http.createServer((req, res) => {
    const index = count;
    count += 1;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const forwarded = http.request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: upstream.host },
          agent,
        },
        (answer) => {
          const body: Buffer[] = [];
          answer.on('data', (c: Buffer) => body.push(c));
          answer.on('end', () => {
            const dropped = proxy.drop(index, req);
            seen.push({
              method: req.method ?? '',
              path: req.url ?? '',
              headers: req.headers,
              upstreamStatus: answer.statusCode ?? 0,
              dropped,
            });
            if (dropped) {
              req.socket.destroy();
              return;
            }
            const headers = { ...answer.headers };
            delete headers['transfer-encoding'];
            delete headers['connection'];
            res.writeHead(answer.statusCode ?? 502, headers);
            res.end(Buffer.concat(body));
          });
        },
      );
      forwarded.on('error', () => req.socket.destroy());
      forwarded.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const proxy: DropProxy = {
    url: `http://127.0.0.1:${port}`,
    seen,
    drop: () => false,
    async close() {
      server.closeAllConnections();
      agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}
