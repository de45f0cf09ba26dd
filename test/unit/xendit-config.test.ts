import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { ConnectorRegistry } from '../../src/connectors/core/registry.ts';
import { fromXenditAmount, toXenditAmount } from '../../src/connectors/xendit/transformers.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { builtInConnectors } from '../../src/runtime.ts';

const XENDIT = ['xendit_bank', 'xendit_ewallet', 'xendit_counter'];
const base = { sandboxBaseUrl: () => 'http://127.0.0.1:1', sandboxSecret: 'x'.repeat(32), log: createLogger('silent') };

describe('Xendit configuration and registration', () => {
  it('reads XENDIT_* (tokens comma-separated for rotation, default base URL)', () => {
    const c = loadConfig({ XENDIT_SECRET_KEY: 'xnd_production_abc', XENDIT_CALLBACK_TOKEN: 'new-token, old-token' });
    assert.equal(c.xenditSecretKey, 'xnd_production_abc');
    assert.deepEqual(c.xenditCallbackTokens, ['new-token', 'old-token']);
    assert.equal(c.xenditBaseUrl, 'https://api.xendit.co');
    assert.equal(loadConfig({ XENDIT_BASE_URL: 'http://127.0.0.1:9/' }).xenditBaseUrl, 'http://127.0.0.1:9');
    assert.equal(loadConfig({}).xenditSecretKey, undefined);
  });

  it('registers the three connectors only with Xendit options; production keys reach them only when listed', () => {
    const without = builtInConnectors(base).map((c) => c.capabilities.connector);
    assert.equal(
      without.some((n) => n.startsWith('xendit_')),
      false,
    );
    const withXendit = builtInConnectors({
      ...base,
      xendit: { secretKey: 'xnd_production_abc', callbackTokens: ['t'], baseUrl: 'http://127.0.0.1:9', publicBaseUrl: () => 'x' },
    });
    assert.deepEqual(
      withXendit.map((c) => c.capabilities.connector).filter((n) => n.startsWith('xendit_')),
      XENDIT,
    );
    const unlisted = new ConnectorRegistry(withXendit, []);
    assert.deepEqual(unlisted.enabledFor('production'), []);
    assert.equal(
      unlisted.enabledFor('sandbox').some((c) => c.connector.startsWith('xendit_')),
      false,
      'not simulators',
    );
    const listed = new ConnectorRegistry(withXendit, ['xendit_bank']);
    assert.deepEqual(
      listed.enabledFor('production').map((c) => c.connector),
      ['xendit_bank'],
    );
  });

  it('converts amounts exactly: whole rupiah only', () => {
    assert.equal(toXenditAmount(15_000_000n, 'IDR'), 150_000);
    assert.equal(toXenditAmount(15_000_050n, 'IDR'), undefined, 'sen cannot be sent');
    assert.equal(toXenditAmount(100n, 'PHP'), undefined);
    assert.equal(fromXenditAmount(150_000, 'IDR'), 15_000_000n);
    assert.equal(fromXenditAmount(9_999_999_999_999, 'IDR'), 999_999_999_999_900n);
    assert.equal(fromXenditAmount(99_999_999_999_999, 'IDR'), undefined, 'beyond any amount we hold');
    assert.equal(fromXenditAmount(1.5, 'IDR'), undefined, 'not a whole number');
    assert.equal(fromXenditAmount(2 ** 53, 'IDR'), undefined, 'beyond exact doubles');
    assert.equal(fromXenditAmount('150000', 'IDR'), undefined);
  });
});
