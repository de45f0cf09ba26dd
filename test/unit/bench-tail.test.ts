import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import net from 'node:net';
import { pace } from '../../bench/lib/paced-load.ts';
import { formatPacedTail } from '../../bench/lib/report.ts';
import { pacedTail, serverCollectionsIn, serverMaintenanceIn, slowClusters, tcpTimeouts } from '../../bench/lib/tail.ts';

// What a paced row says about its tail (issue 27): a stall shows as one cluster of many answers,
// scattered slow answers as many small ones.

describe('the tail of a paced window', () => {
  // 1,000 answers due 1 ms apart, 1 ms each, with a 40 ms stall from 300 ms (the answers due
  // during it wait for its end) and two lone slow answers at 700 and 900 ms.
  const samples = Array.from({ length: 1000 }, (_, due) => {
    if (due >= 300 && due < 340) return { due, ms: 340 - due + 1 };
    if (due === 700 || due === 900) return { due, ms: 12 };
    return { due, ms: 1 };
  });

  it('groups the slow answers of one stall into one cluster and keeps lone ones apart', () => {
    const clusters = slowClusters(samples, 5);
    assert.deepEqual(
      clusters.map((c) => [c.from, c.to, c.answers, c.maxMs]),
      [
        [300, 335, 36, 41],
        [700, 700, 1, 12],
        [900, 900, 1, 12],
      ],
    );
  });

  it('joins slow answers due within the gap and splits them beyond it', () => {
    const two = [
      { due: 0, ms: 20 },
      { due: 50, ms: 20 },
      { due: 101, ms: 20 },
    ];
    assert.deepEqual(
      slowClusters(two, 10).map((c) => c.answers),
      [2, 1],
    );
  });

  it('reports the largest clusters in time order and the generator collections', () => {
    const tail = pacedTail(
      samples,
      5,
      {
        ownGc: [
          { at: 10, ms: 2.04 },
          { at: 500, ms: 7.51 },
        ],
        late: [{ at: 320, ms: 30.04 }],
        tcpTimeouts: 0,
      },
      2,
    );
    assert.equal(tail.clusters, 3);
    assert.deepEqual(tail.largest, [
      { from_s: 0.3, to_s: 0.34, answers: 36, max_ms: 41 },
      { from_s: 0.7, to_s: 0.7, answers: 1, max_ms: 12 },
    ]);
    assert.deepEqual(tail.load_gc, { collections: 2, total_ms: 9.6, max_ms: 7.5, long: [[0.5, 7.5]] });
    assert.deepEqual(tail.load_late, { times: 1, max_ms: 30, long: [[0.32, 30]] });
    assert.equal(tail.tcp_timeouts, 0);
  });

  it('says no collections and no lateness when the generator had none', () => {
    const tail = pacedTail([], 1, { ownGc: [], late: [], tcpTimeouts: null });
    assert.deepEqual(tail.load_gc, { collections: 0, total_ms: 0, max_ms: 0, long: [] });
    assert.deepEqual(tail.load_late, { times: 0, max_ms: 0, long: [] });
    assert.equal(tail.tcp_timeouts, null);
    assert.equal(tail.opened_at, undefined);
  });

  it('says when the window opened, to place its clusters on other clocks', () => {
    const opened = Date.UTC(2026, 11, 7, 22, 9, 0, 712);
    const tail = pacedTail([], 1, { ownGc: [], late: [], tcpTimeouts: null, windowStartEpochMs: opened });
    assert.equal(tail.opened_at, '2026-12-07T22:09:00.712Z');
    assert.match(formatPacedTail(tail), /^window opened 2026-12-07T22:09:00\.712Z; slowest 1 %/);
  });

  it("places the server's --trace-gc collections on the window's clock, and lists the long ones", () => {
    // The server started at 1,000,000 (epoch ms); the window opened 5 s later and lasted 2 s.
    const output = [
      '[77:0x5a1b2c3d4e50]     4900 ms: Scavenge 74.0 (94.7) -> 61.1 (94.7) MB, 0.86 / 0.13 ms  (average mu = 0.991) task; ',
      '[77:0x5a1b2c3d4e50]     5100 ms: Scavenge 74.0 (94.7) -> 61.1 (94.7) MB, 6.20 / 0.13 ms  (average mu = 0.991) task; ',
      '{"level":30,"msg":"not a collection"}',
      '[77:0x7f4284000f00]     6000 ms: Scavenge 11.8 (16.2) -> 8.4 (16.5) MB, pooled: 0.0 MB, 1.10 / 0.05 ms  allocation failure; ',
      '[77:0x5a1b2c3d4e50]     6500 ms: Mark-Compact 190.1 (210.0) -> 55.0 (70.0) MB, 41.50 / 0.02 ms  (+ 3.2 ms in 51 steps) finalize; ',
      '[77:0x5a1b2c3d4e50]     7200 ms: Mark-Compact 60.1 (80.0) -> 55.0 (70.0) MB, 9.00 / 0.02 ms  finalize; ',
    ].join('\n');
    const gc = serverCollectionsIn(output, 1_000_000, 1_005_000, 2);
    assert.deepEqual(gc, [
      { kind: 'Scavenge', at: 0.1, ms: 6.2, thread: 'main' },
      { kind: 'Scavenge', at: 1, ms: 1.1, thread: 'other' },
      { kind: 'Mark-Compact', at: 1.5, ms: 41.5, thread: 'main' },
    ]);
    const tail = pacedTail([], 1, { ownGc: [], late: [], tcpTimeouts: null, serverGc: gc });
    assert.deepEqual(tail.server_gc, {
      scavenges: 2,
      long: [
        [0.1, 6.2, 'Scavenge main'],
        [1.5, 41.5, 'Mark-Compact main'],
      ],
    });
    assert.match(
      formatPacedTail(tail),
      /server GC 2 scavenges, Mark-Compact or >= 5 ms: at s: 0\.1:6\.2 \(Scavenge main\) 1\.5:41\.5 \(Mark-Compact main\)/,
    );
    assert.equal(pacedTail([], 1, { ownGc: [], late: [], tcpTimeouts: null, serverGc: [] }).server_gc, undefined);
  });

  it('reads the machine TCP timeouts where the OS has them', () => {
    const n = tcpTimeouts();
    if (process.platform === 'linux') assert.ok(Number.isInteger(n) && (n as number) >= 0, `TCPTimeouts ${n}`);
    else assert.equal(n, null);
  });
});

describe('the paced generator reports its own lateness', () => {
  it('names the window time at which its thread was held, and how long', async () => {
    // A loopback HTTP server that answers every request at once.
    const server = net.createServer((socket) => {
      socket.on('data', (chunk) => {
        const requests = chunk.toString().split('\r\n\r\n').length - 1;
        for (let i = 0; i < requests; i += 1) socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    const late: { at: number; ms: number }[] = [];
    let answered = 0;
    // The generator's thread held for 60 ms from ~150 ms into a 400 ms window at 200 requests/s.
    const hold = setTimeout(() => {
      const until = performance.now() + 60;
      while (performance.now() < until);
    }, 150);
    try {
      await pace({
        host: '127.0.0.1',
        port,
        connections: 4,
        seconds: 0.4,
        rate: 200,
        timeoutMs: 2000,
        next: (dueMs) => ({ dueMs, bytes: Buffer.from(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`) }),
        onAnswer: () => {
          answered += 1;
        },
        onLate: (at, ms) => late.push({ at, ms }),
      });
    } finally {
      clearTimeout(hold);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    assert.equal(answered, 80);
    const longest = late.reduce((a, b) => (b.ms > a.ms ? b : a), { at: -1, ms: 0 });
    assert.ok(longest.ms >= 50 && longest.ms < 200, `longest lateness ${longest.ms} ms`);
    assert.ok(longest.at >= 140 && longest.at <= 220, `held at ${longest.at} ms into the window`);
  });
});

describe("the embedded server's maintenance on a window's clock", () => {
  const windowStart = 1_800_000_000_000;
  const pass = (statements: [number, number, string][]) =>
    JSON.stringify({
      level: 30,
      time: windowStart,
      msg: 'embedded maintenance pass',
      maintenance: statements.map(([startedAt, ms, what]) => ({ what, started_at: startedAt, ms })),
      held_ms: 1,
    });

  it('places each statement that ran in the window at its start, and leaves out those wholly before or after it', () => {
    const output = [
      pass([
        [windowStart - 500, 30, 'read'],
        [windowStart - 200, 350, 'vacuum payments'],
      ]),
      '{"level":30,"msg":"listening"}',
      pass([
        [windowStart + 10_020, 29.5, 'read'],
        [windowStart + 10_100, 74.7, 'analyze payments'],
      ]),
      pass([[windowStart + 21_000, 40, 'vacuum events']]),
    ].join('\n');
    assert.deepEqual(serverMaintenanceIn(output, windowStart, 20), [
      [-0.2, 350, 'vacuum payments'],
      [10.02, 29.5, 'read'],
      [10.1, 74.7, 'analyze payments'],
    ]);
  });

  it('skips a line cut by the bounded output tail and lines that only mention the message', () => {
    const whole = pass([[windowStart + 1_000, 12, 'vacuum payments']]);
    const output = [whole.slice(20), '{"msg":"about the embedded maintenance pass"}', whole].join('\n');
    assert.deepEqual(serverMaintenanceIn(output, windowStart, 20), [[1, 12, 'vacuum payments']]);
  });
});
