import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { LoadRequest, LoadResult } from '../../bench/lib/load.ts';
import { runPacedLoad } from '../../bench/lib/paced-load.ts';
import { runPacedLoadOnOwnThread } from '../../bench/lib/paced-thread.ts';

// The open-loop load generator of the latency rows (create_paced, get_paced, dispatch): it is the
// instrument those targets are read with, so it is tested like code that ships.

// The same generator on this thread and on a worker thread of its own (the paced rows of
// `npm run bench`: the requests are built here, paced there, bodies handed back after the window).
const generators: [string, (o: Parameters<typeof runPacedLoad>[0]) => Promise<LoadResult>][] = [
  ['on this thread', runPacedLoad],
  ['on its own thread', (o) => runPacedLoadOnOwnThread({ ...o, warmupSeconds: 0 })],
];

/** POST /create/n with body {"n":n,"é":1}, n counting up; each answer is checked and handed on. */
function numberedCreates(onEcho: (n: number, echo: string) => void): LoadRequest {
  let n = 0;
  return {
    method: 'POST',
    path: '/x',
    setupRequest: (request, context) => {
      n += 1;
      context['n'] = n;
      return { ...request, path: `/create/${n}`, headers: { 'content-type': 'application/json' }, body: `{"n":${n},"é":1}` };
    },
    onResponse: (status, body, context) => {
      assert.equal(status, 201);
      const parsed = JSON.parse(body) as { path: string; echo: string };
      assert.equal(parsed.path, `/create/${String(context['n'])}`);
      onEcho(Number(context['n']), parsed.echo);
    },
  };
}

describe('paced load generator', () => {
  let server: http.Server;
  let url: string;
  const seen: string[] = [];
  before(async () => {
    server = http.createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        if (req.url === '/chunked') {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.write('one,');
          res.end('two');
        } else if (req.url === '/drop') {
          req.socket.destroy();
        } else if (req.url === '/slow') {
          setTimeout(() => res.end('late'), 1500);
        } else if (req.url === '/empty') {
          res.writeHead(204).end();
        } else {
          res.writeHead(req.url === '/missing' ? 404 : 201, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ path: req.url, echo: body }));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  for (const [where, generate] of generators) {
    it(`sends rate × seconds requests, evenly, each body and answer intact (${where})`, async () => {
      seen.length = 0;
      const answers: string[] = [];
      const dues: number[] = [];
      const result = await generate({
        url,
        connections: 4,
        seconds: 1,
        rate: 200,
        requests: [numberedCreates((_, echo) => answers.push(echo))],
        onSample: (dueMs) => dues.push(dueMs),
      });
      assert.equal(result.requests, 200);
      assert.equal(result.errors, 0);
      assert.deepEqual(result.statusCounts, { 201: 200 });
      assert.equal(seen.length, 200);
      assert.equal(answers.length, 200);
      assert.deepEqual(JSON.parse(answers[41] as string), { n: 42, é: 1 });
      // Due every 5 ms from the start of the window, whatever the answers' order.
      const sorted = [...dues].sort((a, b) => a - b);
      assert.ok(
        sorted.every((d, i) => Math.abs(d - i * 5) < 1e-6),
        `dues: ${sorted.slice(0, 5).join(', ')}`,
      );
    });

    it(`reads chunked and empty answers, counts other statuses, dropped connections and timeouts as errors (${where})`, async () => {
      const paths = ['/chunked', '/empty', '/missing', '/drop', '/slow'];
      const bodies: Record<string, string[]> = {};
      let i = 0;
      const result = await generate({
        url,
        connections: 2,
        seconds: 0.5,
        rate: 20,
        timeoutSeconds: 0.1,
        requests: [
          {
            method: 'GET',
            path: '/',
            setupRequest: (request, context) => {
              const path = paths[i++ % paths.length] as string;
              context['path'] = path;
              return { ...request, path };
            },
            onResponse: (status, body, context) => {
              const path = String(context['path']);
              (bodies[path] ??= []).push(`${status} ${body}`);
            },
          },
        ],
      });
      // 10 requests: two of each path.
      assert.deepEqual(bodies['/chunked'], ['200 one,two', '200 one,two']);
      assert.deepEqual(bodies['/empty'], ['204 ', '204 ']);
      assert.equal(bodies['/missing']?.length, 2);
      assert.equal(bodies['/drop'], undefined);
      assert.equal(bodies['/slow'], undefined, 'an answer after the timeout was read');
      // Answered: 6 (two 404s among them); failed: two dropped, two timed out.
      assert.equal(result.requests, 6);
      assert.deepEqual(result.statusCounts, { 200: 2, 204: 2, 404: 2 });
      assert.equal(result.errors, 2 + 2 + 2);
    });
  }

  it('warms up on its own thread first and counts and reads only the window', async () => {
    seen.length = 0;
    const read: number[] = [];
    const result = await runPacedLoadOnOwnThread({
      url,
      connections: 2,
      warmupSeconds: 0.5,
      seconds: 0.5,
      rate: 20,
      requests: [numberedCreates((n) => read.push(n))],
    });
    // 10 warm-up requests, then 10 in the window; only the window's are counted and read. Each
    // part is built with one spare (a rounding margin), so the window's first is the 12th built.
    const window = Array.from({ length: 10 }, (_, i) => i + 12);
    assert.deepEqual(
      seen.map((s) => s.split(' ')[1]),
      [...Array.from({ length: 10 }, (_, i) => i + 1), ...window].map((k) => `/create/${k}`),
    );
    assert.equal(result.requests, 10);
    assert.deepEqual(result.statusCounts, { 201: 10 });
    assert.deepEqual(
      read.sort((a, b) => a - b),
      window,
    );
  });
});
