import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig, ConfigError } from '../../src/config.ts';
import { guarded } from '../../src/db/statement.ts';
import { newId, isIdOf } from '../../src/lib/ids.ts';
import { parseFailpoints } from '../../src/lib/failpoints.ts';
import { redactSecrets } from '../../src/lib/logger.ts';
import { canonicalJson, fingerprint } from '../../src/modules/idempotency/fingerprint.ts';
import { API_KEY_PATTERN, environmentOfKey, generateApiKey, hashApiKey } from '../../src/modules/merchants/api-key.ts';
import { parseFaults } from '../../src/sandbox/sandbox-providers.ts';

describe('ids', () => {
  it('are prefixed, 26 Crockford characters, time-ordered and unique', () => {
    const a = newId('payment', 1_700_000_000_000);
    const b = newId('payment', 1_700_000_000_001);
    assert.match(a, /^pay_[0-9A-HJKMNP-TV-Z]{26}$/);
    assert.ok(a.slice(4, 14) < b.slice(4, 14));
    assert.ok(isIdOf('payment', a));
    assert.equal(isIdOf('payment', 'pay_short'), false);
    assert.equal(isIdOf('payment', a.replace('pay_', 'evt_')), false);
    const many = new Set(Array.from({ length: 1000 }, () => newId('event')));
    assert.equal(many.size, 1000);
  });
});

describe('fingerprint', () => {
  it('ignores key order and undefined fields, not values', () => {
    assert.equal(canonicalJson({ b: 1, a: { d: [1, 2], c: null } }), '{"a":{"c":null,"d":[1,2]},"b":1}');
    assert.equal(fingerprint('op', { a: 1n, b: 'x' }), fingerprint('op', { b: 'x', a: 1n, c: undefined }));
    assert.notEqual(fingerprint('op', { a: 1n }), fingerprint('op', { a: 2n }));
    assert.notEqual(fingerprint('op1', { a: 1n }), fingerprint('op2', { a: 1n }));
  });
});

describe('api keys', () => {
  it('have the published shape and carry their environment', () => {
    const test = generateApiKey('sandbox');
    const live = generateApiKey('production');
    assert.match(test, API_KEY_PATTERN);
    assert.ok(test.startsWith('sk_test_') && live.startsWith('sk_live_'));
    assert.equal(environmentOfKey(test), 'sandbox');
    assert.equal(environmentOfKey(live), 'production');
    assert.equal(environmentOfKey('sk_test_short'), undefined);
    assert.notEqual(hashApiKey('s1'.repeat(20), test), hashApiKey('s2'.repeat(20), test));
  });
});

describe('failpoints', () => {
  it('are no-ops unless configured, and refuse bad specs', () => {
    parseFailpoints('').hit('create.after_connector');
    assert.throws(() => parseFailpoints('x.y=throw').hit('x.y'), /failpoint x.y/);
    assert.throws(() => parseFailpoints('x.y=explode'), /bad TRIBUTARY_FAILPOINTS/);
  });
});

describe('redactSecrets', () => {
  it('masks API keys, webhook secrets and card-number-shaped digits', () => {
    const text = redactSecrets('key sk_live_abcDEF123 secret whsec_QUJD card 4111 1111 1111 1111 ok');
    assert.equal(text.includes('sk_live_abc'), false);
    assert.equal(text.includes('whsec_'), false);
    assert.equal(text.includes('4111'), false);
    assert.ok(text.endsWith('ok'));
  });
});

describe('config', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    assert.equal(config.port, 8080);
    assert.equal(config.dataDir, './data');
    assert.equal(config.databaseUrl, undefined);
    assert.deepEqual(config.webhookAllowlist, []);
    assert.equal(config.idempotencyTtlHours, 24);
    assert.equal(config.embeddedDbThread, 'worker');
  });
  it('refuses bad values with a clear message', () => {
    assert.throws(() => loadConfig({ PORT: 'abc' }), ConfigError);
    assert.throws(() => loadConfig({ PORT: '70000' }), ConfigError);
    assert.throws(() => loadConfig({ TRIBUTARY_SECRET: 'short' }), ConfigError);
    assert.throws(() => loadConfig({ IDEMPOTENCY_TTL_HOURS: '1' }), ConfigError);
    assert.throws(() => loadConfig({ EMBEDDED_DB_THREAD: 'both' }), /EMBEDDED_DB_THREAD must be one of worker, main/);
    assert.equal(loadConfig({ EMBEDDED_DB_THREAD: 'main' }).embeddedDbThread, 'main');
    assert.deepEqual(loadConfig({ WEBHOOK_ALLOWLIST: '127.0.0.1, ::1 ,' }).webhookAllowlist, ['127.0.0.1', '::1']);
  });
});

describe('sandbox control API faults', () => {
  it('reads refund faults with their delay and count, and refuses unknown modes', () => {
    assert.deepEqual(parseFaults({ refund: { mode: 'fail', delay_ms: 5_000, remaining: 2 } }), {
      refund: { mode: 'fail', delayMs: 5_000, remaining: 2 },
    });
    assert.deepEqual(parseFaults({ refund: { mode: 'pending' } }), { refund: { mode: 'pending' } });
    assert.equal(parseFaults({ refund: { mode: 'explode' } }), undefined);
  });
});

describe('guarded inserts', () => {
  const insert = { text: 'INSERT INTO t (a, b)\n     VALUES ($1, $2)', params: [1, 'x'] };
  it('turn a single-row INSERT … VALUES into INSERT … SELECT … WHERE guard, parameters untouched', () => {
    assert.deepEqual(guarded(undefined, insert), insert);
    assert.deepEqual(guarded('EXISTS (SELECT 1 FROM k)', insert), {
      text: 'INSERT INTO t (a, b)\n     SELECT $1, $2 WHERE EXISTS (SELECT 1 FROM k)',
      params: [1, 'x'],
    });
    assert.throws(() => guarded('TRUE', { text: 'UPDATE t SET a = $1', params: [1] }), /single-row INSERT/);
  });
});

describe('database error classification', () => {
  it('a write refused by a read-only (standby) node is "unavailable", as a lost connection is; a constraint is not', async () => {
    const { isStoreUnavailable } = await import('../../src/db/db-errors.ts');
    assert.equal(isStoreUnavailable({ code: '25006', message: 'cannot execute UPDATE in a read-only transaction' }), true);
    assert.equal(isStoreUnavailable({ code: '57P01', message: 'terminating connection due to administrator command' }), true);
    assert.equal(isStoreUnavailable({ code: '23505', message: 'duplicate key value' }), false);
  });
});
