import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { type Event, Tributary } from '../../sdk/src/index.ts';
import { runCli, type ServerProcess, startServer, tempDataDir } from '../harness/server-process.ts';
import { createPostgresSchema, dropPostgresSchema, postgresUrlWithSchema, TEST_STORE } from '../harness/test-store.ts';
import { type Receiver, type ReceivedRequest, startReceiver } from '../harness/webhook-receiver.ts';

/**
 * The merchant commands of the `tributary` bin (docs/cli.md), run as child processes against a
 * real Tributary process on 127.0.0.1 with the store of this pass (embedded, or PostgreSQL with
 * TEST_STORE=postgres): the sandbox providers notify it over HTTP as in `npm start`, so every
 * event the CLI shows was produced by the real flow. Waits are bounded polls of the real server.
 */

const CLI_TIMEOUT_MS = 90_000;
const WAIT_MS = 30_000;

interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Every output of every CLI run, checked at the end: the API key is never printed. */
const outputs: string[] = [];

/** The environment of the test runner minus anything that would configure the CLI behind our back. */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith('TRIBUTARY_') && k !== 'NO_COLOR') env[k] = v;
  }
  return env;
}

function spawnCli(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['bin/tributary.js', ...args], {
    env: { ...cleanEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Runs the CLI without blocking this process (the loopback receivers live here). */
function cli(args: string[], env: Record<string, string>): Promise<CliResult> {
  const child = spawnCli(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`tributary ${args.join(' ')} did not finish within ${CLI_TIMEOUT_MS} ms:\n${stdout}\n${stderr}`));
    }, CLI_TIMEOUT_MS);
    child.on('close', (status) => {
      clearTimeout(timer);
      outputs.push(stdout, stderr);
      resolve({ status, stdout, stderr });
    });
  });
}

async function eventually<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = WAIT_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const jsonOf = <T>(r: CliResult): T => {
  assert.equal(r.status, 0, `exit ${String(r.status)}\n${r.stdout}\n${r.stderr}`);
  return JSON.parse(r.stdout) as T;
};

describe(`merchant CLI against a real server (${TEST_STORE})`, () => {
  let server: ServerProcess;
  let schema: string | undefined;
  let keys: { sandbox: string; production: string };
  let env: Record<string, string>;
  let sdk: Tributary;
  let reference = 0;
  const ref = (label: string) => `cli-${label}-${process.pid}-${(reference += 1)}`;

  before(async () => {
    const storeEnv: Record<string, string> =
      TEST_STORE === 'postgres'
        ? { DATABASE_URL: postgresUrlWithSchema((schema = await createPostgresSchema())) }
        : { DATA_DIR: tempDataDir() };
    const created = runCli(['merchants', 'create', '--name', 'CLI merchant', '--json'], storeEnv);
    assert.equal(created.status, 0, created.stderr);
    keys = (JSON.parse(created.stdout) as { api_keys: { sandbox: string; production: string } }).api_keys;
    // WEBHOOK_ALLOWLIST: only for the `events resend` endpoint below; `listen` needs none.
    server = await startServer({ ...storeEnv, WEBHOOK_ALLOWLIST: '127.0.0.1' });
    env = { TRIBUTARY_API_KEY: keys.sandbox, TRIBUTARY_BASE_URL: server.url };
    sdk = new Tributary(keys.sandbox, { baseUrl: server.url });
  });

  after(async () => {
    await server?.kill('SIGTERM');
    if (schema !== undefined) await dropPostgresSchema(schema);
    for (const text of outputs) {
      assert.ok(!text.includes(keys.sandbox) && !text.includes(keys.production), 'the API key is never printed');
    }
  });

  it('payments create, get and list: --json prints the API objects, the human form the exact amount', async () => {
    const reference = ref('create');
    const created = jsonOf<{
      id: string;
      status: string;
      amount: number;
      currency: string;
      metadata: unknown;
      instructions: { type: string };
    }>(
      await cli(
        [
          'payments',
          'create',
          '--amount',
          '150000.00',
          '--currency',
          'IDR',
          '--reference',
          reference,
          '--channel',
          'bank',
          '--metadata',
          'order=1001',
          '--json',
        ],
        env,
      ),
    );
    assert.match(created.id, /^pay_[0-9A-Z]{26}$/);
    assert.equal(created.status, 'pending');
    assert.equal(created.amount, 150000);
    assert.equal(created.currency, 'IDR');
    assert.deepEqual(created.metadata, { order: '1001' });
    assert.equal(created.instructions.type, 'virtual_account');

    const got = jsonOf<{ id: string; reference_no: string }>(await cli(['payments', 'get', created.id, '--json'], env));
    assert.deepEqual([got.id, got.reference_no], [created.id, reference]);

    const page = jsonOf<{ object: string; data: { id: string }[]; has_more: boolean }>(
      await cli(['payments', 'list', '--limit', '1', '--json'], env),
    );
    assert.equal(page.object, 'list');
    assert.deepEqual(
      page.data.map((p) => p.id),
      [created.id],
    );

    const human = await cli(['payments', 'get', created.id], env);
    assert.equal(human.status, 0, human.stderr);
    assert.match(human.stdout, new RegExp(`${created.id}\\s+pending\\s+IDR 150,000\\.00`));
    assert.match(human.stdout, /virtual account BCA \d+/);
    assert.ok(!human.stdout.includes('\u001b['), 'no colour when stdout is not a terminal');

    // Amounts are checked exactly against the currency before anything is sent.
    const tooPrecise = await cli(
      ['payments', 'create', '--amount', '10.005', '--currency', 'USD', '--reference', ref('x'), '--json'],
      env,
    );
    assert.equal(tooPrecise.status, 2);
    assert.equal(tooPrecise.stdout, '');
    assert.match(tooPrecise.stderr, /--amount "10\.005" has more decimals than the currency has minor units \(USD\)/);
  });

  it('checkout create, get, list and expire: the url and client_secret at create, the exact amount, the expiry', async () => {
    const reference = ref('checkout');
    const args = [
      'checkout',
      'create',
      '--amount',
      '150000.00',
      '--currency',
      'IDR',
      '--reference',
      reference,
      '--channels',
      'bank,ewallet',
      '--expires-in',
      '2h',
      '--success-url',
      'https://shop.example.com/thanks',
      '--cancel-url',
      'https://shop.example.com/cart',
      '--idempotency-key',
      `cli-checkout-${reference}`,
    ];
    type CliCheckout = {
      id: string;
      status: string;
      url: string;
      client_secret?: string;
      amount: number;
      channels: string[];
      payment: string | null;
      payments: string[];
      expires_at: string;
      created_at: string;
      success_url: string | null;
      cancel_url: string | null;
    };
    const created = jsonOf<CliCheckout>(await cli([...args, '--json'], env));
    assert.match(created.id, /^cs_[0-9A-Z]{26}$/);
    assert.equal(created.status, 'open');
    assert.match(created.url, new RegExp(`^https?://[^/]+/pay/${created.id}$`));
    assert.match(created.client_secret ?? '', new RegExp(`^${created.id}_secret_`));
    assert.equal(created.amount, 150000);
    assert.deepEqual(created.channels, ['bank', 'ewallet']);
    assert.deepEqual(
      [created.success_url, created.cancel_url],
      ['https://shop.example.com/thanks', 'https://shop.example.com/cart'],
    );
    assert.equal(Date.parse(created.expires_at) - Date.parse(created.created_at), 2 * 3_600_000);
    // The same Idempotency-Key again: the stored answer, the same checkout and secret.
    const replayed = await cli(args, env);
    assert.equal(replayed.status, 0, replayed.stderr);
    assert.match(replayed.stdout, new RegExp(`^Created ${created.id}\\s+open\\s+IDR 150,000\\.00`));
    assert.ok(replayed.stdout.includes(created.client_secret ?? '?'), 'the human form shows the secret of the create answer');
    assert.ok(replayed.stdout.includes(created.url), 'the human form shows the url');

    // The payer chooses bank (from the merchant's own UI, with the secret): get shows that payment.
    const selected = await sdk.checkouts.select(created.id, { client_secret: created.client_secret ?? '', channel: 'bank' });
    const paymentId = selected.payment.id;
    const got = jsonOf<CliCheckout>(await cli(['checkout', 'get', created.id, '--json'], env));
    assert.equal(got.client_secret, undefined, 'the secret is shown only by create');
    assert.deepEqual([got.payment, got.payments], [paymentId, [paymentId]]);
    const human = await cli(['checkout', 'get', created.id], env);
    assert.equal(human.status, 0, human.stderr);
    assert.match(human.stdout, new RegExp(`${created.id}\\s+open\\s+IDR 150,000\\.00`));
    assert.match(human.stdout, new RegExp(`payment\\s+${paymentId}`));
    assert.ok(!human.stdout.includes('client_secret'));

    const page = jsonOf<{ object: string; data: CliCheckout[] }>(await cli(['checkout', 'list', '--limit', '1', '--json'], env));
    assert.equal(page.object, 'list');
    assert.deepEqual(
      page.data.map((c) => c.id),
      [created.id],
    );
    const open = await cli(['checkout', 'list', '--status', 'open'], env);
    assert.match(open.stdout, new RegExp(`${created.id}\\s+open\\s+IDR 150,000\\.00\\s+${reference}\\s+\\S+\\s+${paymentId}`));

    const expired = jsonOf<CliCheckout>(await cli(['checkout', 'expire', created.id, '--json'], env));
    assert.deepEqual([expired.id, expired.status], [created.id, 'expired']);
    assert.equal((await sdk.payments.retrieve(paymentId)).status, 'canceled', 'its pending payment was canceled');
    const again = await cli(['checkout', 'expire', created.id], env);
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, new RegExp(`^Expired ${created.id}\\s+expired`));

    // Usage mistakes are caught before anything is sent (exit 2); an unknown checkout is the API's 404 (exit 1).
    const [badChannel, tooShort, badId, unknown] = await Promise.all([
      cli(
        ['checkout', 'create', '--amount', '1000', '--currency', 'IDR', '--reference', ref('x'), '--channels', 'bank,card'],
        env,
      ),
      cli(['checkout', 'create', '--amount', '1000', '--currency', 'IDR', '--reference', ref('x'), '--expires-in', '1m'], env),
      cli(['checkout', 'get', 'pay_01M802HR5XTTXZAF0MA4G1EYJY'], env),
      cli(['checkout', 'get', 'cs_01M802HR5XTTXZAF0MA4G1EYJY', '--json'], env),
    ]);
    assert.equal(badChannel.status, 2);
    assert.match(badChannel.stderr, /--channels \(comma-separated\) must be one of bank, ewallet, counter/);
    assert.equal(tooShort.status, 2);
    assert.match(tooShort.stderr, /--expires-in "1m" must be/);
    assert.equal(badId.status, 2);
    assert.match(badId.stderr, /a checkout id expected \(cs_…\)/);
    assert.equal(unknown.status, 1);
    assert.equal((JSON.parse(unknown.stdout) as { code: string }).code, 'resource_not_found');
  });

  it('payment-links create, get, list and deactivate: the url, the exact amount or bounds, uses and totals', async () => {
    type CliLink = {
      id: string;
      status: string;
      url: string;
      amount: number | null;
      amount_min: number | null;
      amount_max: number | null;
      description: string | null;
      max_uses: number | null;
      remaining_uses: number | null;
      expires_at: string | null;
      channels: string[] | null;
      checkouts: { open: number; completed: number; expired: number };
    };
    const expiresAt = new Date(Date.now() + 7 * 86_400_000).toISOString();
    const args = [
      'payment-links',
      'create',
      '--amount',
      '150000.00',
      '--currency',
      'IDR',
      '--description',
      'Yoga class',
      '--max-uses',
      '3',
      '--expires-at',
      expiresAt,
      '--channels',
      'bank,ewallet',
      '--success-url',
      'https://shop.example.com/thanks',
      '--idempotency-key',
      `cli-plink-${ref('key')}`,
    ];
    const created = jsonOf<CliLink>(await cli([...args, '--json'], env));
    assert.match(created.id, /^plink_[0-9A-Z]{26}$/);
    assert.equal(created.status, 'active');
    assert.match(created.url, new RegExp(`^https?://[^/]+/pay/${created.id}$`));
    assert.deepEqual(
      [created.amount, created.amount_min, created.description, created.max_uses, created.expires_at, created.channels],
      [150000, null, 'Yoga class', 3, expiresAt, ['bank', 'ewallet']],
    );
    // The same Idempotency-Key again: the stored answer, and the human form prints the url to share.
    const replayed = await cli(args, env);
    assert.equal(replayed.status, 0, replayed.stderr);
    assert.match(replayed.stdout, new RegExp(`^Created ${created.id}\\s+active\\s+IDR 150,000\\.00\n`));
    assert.match(replayed.stdout, /uses\s+3 of 3 left/);
    assert.ok(replayed.stdout.trimEnd().endsWith(`Share: ${created.url}`), replayed.stdout);

    const bounded = await cli(
      ['payment-links', 'create', '--amount-min', '50000', '--amount-max', '2000000.00', '--currency', 'IDR'],
      env,
    );
    assert.equal(bounded.status, 0, bounded.stderr);
    assert.match(bounded.stdout, /active\s+IDR 50,000\.00 – IDR 2,000,000\.00 \(payer enters\)/);
    assert.match(bounded.stdout, /uses\s+unlimited/);
    const boundedId = /^Created (plink_[0-9A-Z]{26})/.exec(bounded.stdout)?.[1] ?? '';

    // A visit (what the payer's Pay button does) holds a use: get shows it.
    await sdk.paymentLinks.startCheckout(created.id);
    const got = jsonOf<CliLink>(await cli(['payment-links', 'get', created.id, '--json'], env));
    assert.deepEqual([got.checkouts, got.remaining_uses], [{ open: 1, completed: 0, expired: 0 }, 2]);
    const human = await cli(['payment-links', 'get', created.id], env);
    assert.match(human.stdout, /checkouts\s+1 open, 0 completed, 0 expired/);
    assert.match(human.stdout, /collected\s+IDR 0\.00/);

    const page = jsonOf<{ object: string; data: CliLink[]; next_cursor: string | null }>(
      await cli(['payment-links', 'list', '--limit', '1', '--json'], env),
    );
    assert.equal(page.object, 'list');
    assert.equal(page.data.length, 1);
    const listed = await cli(['payment-links', 'list'], env);
    assert.match(listed.stdout, new RegExp(`${created.id}\\s+active\\s+IDR 150,000\\.00\\s+2 of 3 left\\s+IDR 0\\.00`));
    assert.ok(listed.stdout.includes(boundedId));

    const deactivated = jsonOf<CliLink>(await cli(['payment-links', 'deactivate', created.id, '--json'], env));
    assert.deepEqual([deactivated.id, deactivated.status], [created.id, 'inactive']);
    const again = await cli(['payment-links', 'deactivate', created.id], env);
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, new RegExp(`^Deactivated ${created.id}\\s+inactive`));

    // Usage mistakes are caught before anything is sent (exit 2); the API's refusals are exit 1.
    const before = (await sdk.paymentLinks.list({ limit: 100 })).data.length;
    const create = (extra: string[]) => cli(['payment-links', 'create', '--currency', 'IDR', ...extra], env);
    const [both, neither, half, inverted, precise, uses, when, url, badId, past] = await Promise.all([
      create(['--amount', '1000', '--amount-min', '1000', '--amount-max', '2000']),
      create([]),
      create(['--amount-min', '1000']),
      create(['--amount-min', '2000', '--amount-max', '1000.00']),
      create(['--amount', '1000.505']),
      create(['--amount', '150000', '--max-uses', '0']),
      create(['--amount', '150000', '--expires-at', 'tomorrow']),
      create(['--amount', '150000', '--cancel-url', 'javascript:alert(1)']),
      cli(['payment-links', 'deactivate', 'cs_01M802HR5XTTXZAF0MA4G1EYJY'], env),
      create(['--amount', '150000', '--expires-at', '2020-01-01T00:00:00Z', '--json']),
    ]);
    const usage: [CliResult, RegExp][] = [
      [both, /either --amount \(fixed\) or --amount-min and --amount-max/],
      [neither, /--amount, or --amount-min and --amount-max, is required/],
      [half, /--amount-min and --amount-max go together/],
      [inverted, /--amount-min is greater than --amount-max/],
      [precise, /--amount "1000.505" has more decimals than the currency has minor units \(IDR\)/],
      [uses, /--max-uses must be an integer from 1 to 1000000/],
      [when, /--expires-at "tomorrow" must be a date and time with its offset/],
      [url, /--cancel-url must be an absolute http\(s\) URL/],
      [badId, /a payment link id expected \(plink_…\)/],
    ];
    for (const [result, message] of usage) {
      assert.equal(result.status, 2, `${result.stdout}${result.stderr}`);
      assert.match(result.stderr, message);
    }
    assert.equal(past.status, 1, "a past expiry is the API's refusal");
    const refusal = JSON.parse(past.stdout) as { code: string; details: { field: string; issue: string }[] };
    assert.deepEqual(
      [refusal.code, refusal.details[0]?.field, refusal.details[0]?.issue],
      ['invalid_request', 'expires_at', 'not_in_future'],
    );
    assert.equal((await sdk.paymentLinks.list({ limit: 100 })).data.length, before, 'no refused create made a link');
  });

  it('sandbox simulate, refunds create, events list and events resend', async () => {
    const payment = await sdk.payments.create({ amount: 150000, currency: 'IDR', reference_no: ref('refund'), channel: 'bank' });
    const simulation = jsonOf<{ object: string; payment_id: string; outcome: string; connector: string }>(
      await cli(['sandbox', 'simulate', payment.id, '--outcome', 'succeeded', '--json'], env),
    );
    assert.deepEqual(
      [simulation.object, simulation.payment_id, simulation.outcome],
      ['sandbox_simulation', payment.id, 'succeeded'],
    );
    await eventually('the payment to succeed', async () =>
      (await sdk.payments.retrieve(payment.id)).status === 'succeeded' ? true : undefined,
    );

    const refund = jsonOf<{ id: string; payment_id: string; amount: number; status: string }>(
      await cli(['refunds', 'create', payment.id, '--amount', '50000', '--reason', 'requested_by_customer', '--json'], env),
    );
    assert.match(refund.id, /^ref_/);
    assert.deepEqual([refund.payment_id, refund.amount, refund.status], [payment.id, 50000, 'pending']);

    const events = jsonOf<{ data: Event[] }>(await cli(['events', 'list', '--object-id', payment.id, '--json'], env));
    assert.deepEqual(
      events.data.map((e) => e.type),
      ['payment.succeeded', 'payment.pending'],
      'newest first',
    );
    const succeeded = events.data[0] as Event;

    // Resend to an endpoint made after the event: it gets the event signed with its own secret.
    const receiver = await startReceiver();
    try {
      const endpoint = await sdk.webhookEndpoints.create({ url: receiver.url('/resend'), enabled_events: ['refund.failed'] });
      const resent = jsonOf<{ data: { event_id: string; target: string; endpoint_id: string | null }[] }>(
        await cli(['events', 'resend', succeeded.id, '--endpoint', endpoint.id, '--json'], env),
      );
      assert.deepEqual(
        resent.data.map((d) => [d.event_id, d.target, d.endpoint_id]),
        [[succeeded.id, 'webhook_endpoint', endpoint.id]],
      );
      const delivered = await eventually('the resent delivery', () =>
        receiver.requests.find((r) => r.path === '/resend' && r.headers['webhook-id'] === succeeded.id),
      );
      const payload = new Webhook(endpoint.secret).verify(delivered.body, delivered.headers as Record<string, string>) as Event;
      assert.equal(payload.type, 'payment.succeeded');
    } finally {
      await receiver.close();
    }
  });

  it('listen forwards new events signed with its printed secret (verified by standardwebhooks); trigger produces them', async () => {
    let secret: string | undefined;
    const verdicts = new Map<ReceivedRequest, string>();
    const tries = new Map<string, number>();
    const receiver: Receiver = await startReceiver();
    receiver.respond = (request) => {
      try {
        const event = new Webhook(secret ?? 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA').verify(
          request.body,
          request.headers as Record<string, string>,
        ) as Event;
        verdicts.set(request, event.type);
        // The first try of each event fails: listen must try again.
        const n = (tries.get(event.id) ?? 0) + 1;
        tries.set(event.id, n);
        return { status: n === 1 ? 503 : 204 };
      } catch {
        verdicts.set(request, 'unverified');
        return { status: 400 };
      }
    };
    const listener = spawnCli(
      ['listen', '--forward-to', receiver.url('/hook'), '--events', 'payment.succeeded,refund.*', '--json'],
      env,
    );
    let stdout = '';
    let stderr = '';
    listener.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    listener.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => listener.on('exit', (code) => resolve(code)));
    const lines = () =>
      stdout
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    try {
      const ready = await eventually('listen to be ready', () => lines().find((l) => l['kind'] === 'ready'), 60_000);
      secret = ready['secret'] as string;
      assert.match(secret, /^whsec_[A-Za-z0-9+/]+={0,2}$/);
      assert.equal(ready['forward_to'], receiver.url('/hook'));

      const triggered = jsonOf<{ event: Event; payment_id: string; event_type: string }>(
        await cli(['trigger', 'payment.succeeded', '--json'], env),
      );
      assert.equal(triggered.event.type, 'payment.succeeded');
      assert.equal(triggered.event.data.object['id'], triggered.payment_id);

      const line = await eventually('listen to forward the triggered event', () =>
        lines().find((l) => l['kind'] === 'event' && (l['event'] as Event).id === triggered.event.id),
      );
      assert.deepEqual(line['forward'], {
        url: receiver.url('/hook'),
        ok: true,
        statuses: [503, 204],
        duration_ms: (line['forward'] as { duration_ms: number }).duration_ms,
      });
      const forwarded = receiver.requests.filter((r) => r.headers['webhook-id'] === triggered.event.id);
      assert.equal(forwarded.length, 2, 'one retry after the 503');
      assert.ok(forwarded.every((r) => verdicts.get(r) === 'payment.succeeded'));
      assert.deepEqual(JSON.parse(forwarded[1]?.body ?? ''), triggered.event, 'the body is the event as the API shows it');
      // The signature means something: another secret does not verify it.
      assert.throws(() =>
        new Webhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw').verify(
          forwarded[1]?.body ?? '',
          forwarded[1]?.headers as Record<string, string>,
        ),
      );
      // --events: the payment.pending the trigger also produced was not forwarded.
      assert.ok(![...verdicts.values()].includes('payment.pending'));
      assert.ok(![...verdicts.values()].includes('unverified'));

      // The same event is in the log the CLI lists.
      const listed = jsonOf<{ data: Event[] }>(await cli(['events', 'list', '--type', 'payment.succeeded', '--json'], env));
      assert.ok(listed.data.some((e) => e.id === triggered.event.id));

      // A multi-step trigger: pay, then refund; the event is about the refund.
      const refunded = jsonOf<{ event: Event; refund_id: string; steps: { step: string }[] }>(
        await cli(['trigger', 'refund.succeeded', '--json'], env),
      );
      assert.equal(refunded.event.type, 'refund.succeeded');
      assert.equal(refunded.event.data.object['id'], refunded.refund_id);
      assert.deepEqual(
        refunded.steps.map((s) => s.step),
        ['create', 'pay', 'refund'],
      );
      await eventually('listen to forward refund.succeeded', () =>
        lines().find((l) => l['kind'] === 'event' && (l['event'] as Event).id === refunded.event.id),
      );

      listener.kill('SIGINT');
      assert.equal(await exited, 0, stderr);
      const stopped = lines().at(-1);
      assert.equal(stopped?.['kind'], 'stopped');
      assert.equal(stopped?.['failed'], 0);
      assert.ok((stopped?.['forwarded'] as number) >= 2);
    } finally {
      if (listener.exitCode === null && listener.signalCode === null) listener.kill('SIGKILL');
      outputs.push(stdout, stderr);
      await receiver.close();
    }
  });

  it('listen refuses a forward target that is not this machine, before any request', async () => {
    const api = await startReceiver(); // stands in for the API: it must not be called
    try {
      const runs = await Promise.all(
        [
          'http://example.com/hook',
          'http://10.0.0.1:3000/hook',
          'http://169.254.169.254/latest',
          'ftp://127.0.0.1/hook',
          'not a url',
        ].map((target) => cli(['listen', '--forward-to', target], { ...env, TRIBUTARY_BASE_URL: api.origin })),
      );
      for (const run of runs) {
        assert.equal(run.status, 2, run.stderr);
        assert.match(run.stderr, /--forward-to/);
      }
      assert.match(runs[0]?.stderr ?? '', /must point at this machine/);
      assert.equal(api.requests.length, 0);
    } finally {
      await api.close();
    }
  });

  it('a bad key gets the API error structure and exit code 1; usage mistakes exit 2', async () => {
    const badKey = { ...env, TRIBUTARY_API_KEY: 'sk_test_00000000000000000000000000000000' };
    const [asJson, asText, listening, production, noKey, unknownEvent, liveTrigger] = await Promise.all([
      cli(['payments', 'list', '--json'], badKey),
      cli(['payments', 'list'], badKey),
      cli(['listen', '--json'], badKey),
      cli(['sandbox', 'simulate', 'pay_01M802HR5XTTXZAF0MA4G1EYJY', '--outcome', 'succeeded', '--json'], {
        ...env,
        TRIBUTARY_API_KEY: keys.production,
      }),
      cli(['payments', 'list'], { TRIBUTARY_BASE_URL: server.url }),
      cli(['trigger', 'payment.exploded'], env),
      cli(['trigger', 'payment.succeeded'], { ...env, TRIBUTARY_API_KEY: keys.production }),
    ]);
    for (const run of [asJson, listening]) {
      assert.equal(run.status, 1, run.stderr);
      const body = JSON.parse(run.stdout) as Record<string, unknown>;
      assert.deepEqual(Object.keys(body), ['code', 'message', 'details', 'request_id']);
      assert.equal(body['code'], 'unauthorized');
      assert.match(String(body['request_id']), /^req_/);
    }
    assert.equal(asText.status, 1);
    assert.equal(asText.stdout, '');
    assert.match(asText.stderr, /^error unauthorized: /);

    // Production keys have no sandbox: the API's 404, passed through.
    assert.equal(production.status, 1);
    assert.equal((JSON.parse(production.stdout) as { code: string }).code, 'route_not_found');

    assert.equal(noKey.status, 2);
    assert.match(noKey.stderr, /TRIBUTARY_API_KEY/);
    assert.equal(unknownEvent.status, 2);
    assert.match(unknownEvent.stderr, /cannot trigger "payment\.exploded"; supported: payment\.pending, payment\.succeeded/);
    assert.equal(liveTrigger.status, 2);
    assert.match(liveTrigger.stderr, /use a sandbox key/);
  });
});
