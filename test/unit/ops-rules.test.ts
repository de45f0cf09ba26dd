import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

/**
 * The alert rules and their runbooks stay together (docs/operations.md): every alert links a
 * section that exists, every alert has a promtool test where it fires and one where it stays
 * quiet, and every metric a rule reads is documented. (promtool itself runs in `npm run
 * test:rules`; this needs no binary.)
 */
const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const rules = read('ops/prometheus/rules.yml');
const ruleTests = read('ops/prometheus/rules.test.yml');
const operations = read('docs/operations.md');

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
const anchors = new Set(
  [...operations.matchAll(/^#{1,6} (.+)$/gm)].map((m) =>
    (m[1] ?? '')
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-'),
  ),
);

const alerts = [...rules.matchAll(/- alert: (\w+)\n([\s\S]*?)(?=\n\s+- (?:alert|record):|\n*$)/g)].map((m) => ({
  name: m[1] ?? '',
  body: m[2] ?? '',
}));

describe('Prometheus rules and runbooks', () => {
  it('there are alerts, each with a runbook_url naming a section of docs/operations.md', () => {
    assert.ok(alerts.length >= 10, `${alerts.length} alerts found`);
    for (const alert of alerts) {
      const url = /runbook_url: docs\/operations\.md#([\w-]+)/.exec(alert.body)?.[1];
      assert.ok(url !== undefined, `${alert.name} has a runbook_url into docs/operations.md`);
      assert.ok(anchors.has(url), `${alert.name}: docs/operations.md has a section #${url}`);
      assert.match(alert.body, /severity: (critical|warning)/, `${alert.name} has a severity`);
    }
  });

  it('every alert has a promtool test where it fires and one where it stays quiet', () => {
    const fires = new Set([...ruleTests.matchAll(/alertname: (\w+)\n\s+exp_alerts:\n\s+- exp_labels/g)].map((m) => m[1]));
    const quiet = new Set([...ruleTests.matchAll(/alertname: (\w+)\n\s+exp_alerts: \[\]/g)].map((m) => m[1]));
    for (const { name } of alerts) {
      assert.ok(fires.has(name), `${name} has a test where it fires`);
      assert.ok(quiet.has(name), `${name} has a test where it stays quiet`);
    }
  });

  it('every metric the rules read is documented in docs/operations.md', () => {
    const metrics = new Set(
      [...rules.matchAll(/(?<![:\w])(tributary_[a-z_]+)/g)].map((m) => (m[1] ?? '').replace(/_(bucket|count|sum)$/, '')),
    );
    assert.ok(metrics.size >= 10);
    for (const metric of metrics) assert.ok(operations.includes(`\`${metric}\``), `${metric} is documented`);
  });
});
