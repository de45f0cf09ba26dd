import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Allowlist } from '../../src/lib/net/address-policy.ts';
import { createOutboundClient, createSafeLookup, type ResolvedAddress } from '../../src/lib/net/outbound-http.ts';
import { type Receiver, startReceiver } from '../harness/webhook-receiver.ts';

/**
 * SSRF matrix at delivery time. Only two kinds of test here, so that nothing is ever sent to a
 * non-loopback address: the safe `lookup` called directly with a fake resolver (no socket is
 * opened), and real requests to a receiver on 127.0.0.1.
 */
type LookupResult = { error: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number };

function runLookup(answers: ResolvedAddress[] | Error, allow: string[] = [], options: { all?: boolean; family?: number } = {}) {
  const lookup = createSafeLookup(async () => {
    if (answers instanceof Error) throw answers;
    return answers;
  }, new Allowlist(allow));
  return new Promise<LookupResult>((resolve) =>
    lookup('hooks.example.com', options as never, (error, address, family) =>
      resolve({ error, address, ...(family === undefined ? {} : { family }) }),
    ),
  );
}

const v4 = (address: string) => ({ address, family: 4 });
const v6 = (address: string) => ({ address, family: 6 });

describe('safe lookup: every DNS answer is checked, the socket only gets checked addresses', () => {
  it('passes public answers through', async () => {
    const r = await runLookup([v4('93.184.216.34')]);
    assert.equal(r.error, null);
    assert.equal(r.address, '93.184.216.34');
    assert.equal(r.family, 4);
    const all = await runLookup([v4('93.184.216.34'), v6('2606:2800:220:1::1')], [], { all: true });
    assert.deepEqual(all.address, [v4('93.184.216.34'), v6('2606:2800:220:1::1')]);
    const only6 = await runLookup([v4('93.184.216.34'), v6('2606:2800:220:1::1')], [], { family: 6 });
    assert.equal(only6.address, '2606:2800:220:1::1');
  });

  const refused: [string, ResolvedAddress[]][] = [
    ['loopback', [v4('127.0.0.1')]],
    ['private 10/8', [v4('10.1.2.3')]],
    ['cloud metadata', [v4('169.254.169.254')]],
    ['IPv4-mapped loopback', [v6('::ffff:127.0.0.1')]],
    ['IPv6 loopback', [v6('::1')]],
    ['AWS IPv6 metadata (ULA)', [v6('fd00:ec2::254')]],
    ['NAT64 of metadata', [v6('64:ff9b::a9fe:a9fe')]],
    ['one public and one private answer (DNS rebinding)', [v4('93.184.216.34'), v4('192.168.0.10')]],
  ];
  for (const [name, answers] of refused) {
    it(`refuses ${name}`, async () => {
      const r = await runLookup(answers);
      assert.equal(r.error?.name, 'BlockedAddressError');
      assert.equal(r.address, '');
    });
  }

  it('opens allow-listed CIDRs and host names only', async () => {
    assert.equal((await runLookup([v4('10.1.2.3')], ['10.0.0.0/8'])).address, '10.1.2.3');
    assert.equal((await runLookup([v4('192.168.1.1')], ['10.0.0.0/8'])).error?.name, 'BlockedAddressError');
    assert.equal((await runLookup([v4('10.1.2.3')], ['hooks.example.com'])).address, '10.1.2.3');
    assert.equal((await runLookup([v4('10.1.2.3')], ['other.example.com'])).error?.name, 'BlockedAddressError');
  });

  it('reports names without answers and resolver errors', async () => {
    assert.equal((await runLookup([])).error?.code, 'ENOTFOUND');
    assert.equal((await runLookup([v4('93.184.216.34')], [], { family: 6 })).error?.code, 'ENOTFOUND');
    const failure = Object.assign(new Error('queryA ESERVFAIL'), { code: 'ESERVFAIL' });
    assert.equal((await runLookup(failure)).error?.code, 'ESERVFAIL');
  });
});

describe('outbound client against a loopback receiver', () => {
  let receiver: Receiver;
  let port: string;
  before(async () => {
    receiver = await startReceiver();
    port = new URL(receiver.origin).port;
  });
  after(() => receiver.close());

  const client = (allow: string[], resolve?: (h: string) => Promise<ResolvedAddress[]>) =>
    createOutboundClient({
      allowlist: new Allowlist(allow),
      ...(resolve === undefined ? {} : { resolver: resolve }),
      maxSocketsPerHost: 4,
      maxSockets: 8,
    });
  const post = (c: ReturnType<typeof client>, url: string, timeoutMs = 2_000) =>
    c.post({ url, headers: { 'content-type': 'application/json' }, body: '{"a":1}', connectTimeoutMs: 1_000, timeoutMs });

  it('refuses loopback in every literal notation without opening a socket', async () => {
    const c = client([]);
    const before = receiver.requests.length;
    for (const host of [
      '127.0.0.1',
      '2130706433',
      '0x7f.1',
      '0177.0.0.1',
      '127.1',
      '[::ffff:127.0.0.1]',
      '[::ffff:7f00:1]',
      '[::1]',
    ]) {
      const r = await post(c, `http://${host}:${port}/hook`);
      assert.equal(r.kind, 'blocked', host);
      assert.equal(r.durationMs, 0, `${host}: refused before any connection`);
    }
    for (const url of [
      'http://10.0.0.1/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://[fd00:ec2::254]/',
      'http://0.0.0.0:80/',
    ]) {
      const r = await post(c, url);
      assert.equal(r.kind, 'blocked', url);
      assert.equal(r.durationMs, 0, url);
    }
    assert.equal(receiver.requests.length, before, 'nothing reached the receiver');
    c.close();
  });

  it('refuses a name whose DNS answer is loopback; nothing reaches the receiver', async () => {
    const asked: string[] = [];
    const c = client([], async (h) => {
      asked.push(h);
      return [v4('127.0.0.1')];
    });
    const before = receiver.requests.length;
    const r = await post(c, `http://hooks.example.com:${port}/hook`);
    assert.equal(r.kind, 'blocked');
    assert.deepEqual(asked, ['hooks.example.com']);
    assert.equal(receiver.requests.length, before);
    c.close();
  });

  it('connects to the checked address of an allow-listed answer (or host) and sends the exact body', async () => {
    for (const allow of [['127.0.0.1'], ['hooks.example.com']]) {
      const c = client(allow, async () => [v4('127.0.0.1')]);
      const r = await post(c, `http://hooks.example.com:${port}/named`);
      assert.equal(r.kind, 'response', JSON.stringify(r));
      assert.equal(r.kind === 'response' && r.status, 200);
      const got = receiver.requests.at(-1);
      assert.equal(got?.path, '/named');
      assert.equal(got?.headers.host, `hooks.example.com:${port}`);
      assert.equal(got?.body, '{"a":1}');
      c.close();
    }
  });

  it('does not follow redirects', async () => {
    const c = client(['127.0.0.1']);
    receiver.respond = (req) =>
      req.path === '/moved' ? { status: 302, headers: { location: `${receiver.origin}/target` } } : { status: 200 };
    const r = await post(c, receiver.url('/moved'));
    assert.equal(r.kind === 'response' && r.status, 302);
    assert.equal(receiver.requests.filter((q) => q.path === '/target').length, 0);
    receiver.respond = () => ({ status: 200, body: 'ok' });
    c.close();
  });

  it('gives up after the response deadline and keeps at most 2 KiB of an answer', async () => {
    const c = client(['127.0.0.1']);
    receiver.respond = (req) => (req.path === '/slow' ? 'hold' : { status: 500, body: 'x'.repeat(10_000) });
    const slow = await post(c, receiver.url('/slow'), 150);
    assert.equal(slow.kind, 'timeout');
    assert.ok(slow.durationMs >= 140, String(slow.durationMs));
    const big = await post(c, receiver.url('/big'));
    assert.equal(big.kind === 'response' && big.body.length, 2048);
    receiver.release();
    receiver.respond = () => ({ status: 200, body: 'ok' });
    c.close();
  });

  it('reports a refused connection as a network error', async () => {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const closedPort = (server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const c = client(['127.0.0.1']);
    const r = await post(c, `http://127.0.0.1:${closedPort}/hook`);
    assert.equal(r.kind, 'network_error');
    assert.match(r.kind === 'network_error' ? r.error : '', /ECONNREFUSED/);
    c.close();
  });
});
