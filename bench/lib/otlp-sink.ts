import http from 'node:http';

/**
 * An OTLP/HTTP collector stand-in for `npm run bench -- --tracing`: accepts every export on
 * loopback, reads it whole (as a collector would) and discards it, so the servers pay the full cost
 * of producing and sending their spans and nothing else.
 */
export async function startOtlpSink(): Promise<{ url: string; exports(): number; bytes(): number; close(): Promise<void> }> {
  let exports = 0;
  let bytes = 0;
  const server = http.createServer((req, res) => {
    req.on('data', (c: Buffer) => {
      bytes += c.length;
    });
    req.on('end', () => {
      exports += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('OTLP sink is not on TCP');
  return {
    url: `http://127.0.0.1:${address.port}`,
    exports: () => exports,
    bytes: () => bytes,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
