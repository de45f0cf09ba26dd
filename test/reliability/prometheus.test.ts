import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { call } from './harness/api-client.ts';
import { adminQuery, databaseUrl, freePort, type OwnCluster, startOwnCluster } from './harness/databases.ts';
import { FAULT_ENV } from './harness/knobs.ts';
import {
  createMerchant,
  type Merchant,
  newSecret,
  REPO_ROOT,
  type ServerProcess,
  sleep,
  startServer,
  type StoreTarget,
  tempDir,
} from './harness/processes.ts';

/**
 * The alert rules against the real thing (docs/operations.md "Observe"): a Tributary server on a
 * throwaway PostgreSQL cluster, scraped every second by a real Prometheus (Debian's `prometheus`,
 * run here on loopback with a temporary config and data directory) that loads
 * ops/prometheus/rules.yml. The database is stopped under traffic; Prometheus must then record an
 * error ratio from the server's 503s and put TributaryDatabaseUnavailable and
 * TributaryHighErrorRatio in pending (or firing) state; once the database is back, database_up
 * returns to 1 and the database alert clears.
 */
const PROMETHEUS = process.env['PROMETHEUS_BIN'] ?? 'prometheus';
const available = spawnSync(PROMETHEUS, ['--version'], { stdio: 'ignore' }).status === 0;
/** Every wait below is bounded by this. */
const WAIT_MS = 60_000;

interface PromVector {
  metric: Record<string, string>;
  value: [number, string];
}
interface PromRule {
  name: string;
  type: 'alerting' | 'recording';
  state?: 'inactive' | 'pending' | 'firing';
  alerts?: { labels: Record<string, string>; state: string }[];
}

describe(
  'Prometheus scrapes a running server and evaluates the shipped rules',
  { skip: available ? false : `no ${PROMETHEUS} binary (apt-get install prometheus)` },
  () => {
    let cluster: OwnCluster;
    let target: StoreTarget;
    let merchant: Merchant;
    let server: ServerProcess | undefined;
    let prometheus: ChildProcess | undefined;
    let promUrl = '';
    let promOutput = '';
    const secret = newSecret();
    const dir = tempDir('prometheus');

    // Prometheus' own HTTP API, not Tributary's: plain fetch, outside the contract-checking client.
    const promGet = async <T>(path: string): Promise<T | undefined> => {
      try {
        const res = await fetch(`${promUrl}${path}`, { signal: AbortSignal.timeout(5_000) });
        return res.status === 200 ? ((await res.json()) as T) : undefined;
      } catch {
        return undefined;
      }
    };
    const query = async (promql: string): Promise<PromVector[]> =>
      (await promGet<{ data: { result: PromVector[] } }>(`/api/v1/query?query=${encodeURIComponent(promql)}`))?.data.result ?? [];
    const rules = async (): Promise<PromRule[]> =>
      (await promGet<{ data: { groups: { rules: PromRule[] }[] } }>('/api/v1/rules'))?.data.groups.flatMap((g) => g.rules) ?? [];
    /** Polls `check` until it returns a value (bounded); `tick` runs between polls (traffic). */
    async function until<T>(what: string, check: () => Promise<T | undefined>, tick: () => Promise<void>): Promise<T> {
      const deadline = Date.now() + WAIT_MS;
      for (;;) {
        const value = await check();
        if (value !== undefined) return value;
        if (Date.now() > deadline) {
          const states = (await rules()).filter((r) => r.type === 'alerting').map((r) => `${r.name}=${r.state}`);
          throw new Error(`${what}: not within ${WAIT_MS} ms\nalerts: ${states.join(' ')}\nprometheus:\n${promOutput}`);
        }
        await tick();
      }
    }
    /** A burst of authenticated API calls; returns their statuses. */
    const burst = async (n: number): Promise<number[]> => {
      const answers = await Promise.all(
        Array.from({ length: n }, () =>
          call(server?.url ?? '', 'GET', '/payment?limit=1', { key: merchant.sandboxKey, timeoutMs: 5_000 }),
        ),
      );
      await sleep(250);
      return answers.map((a) => (a.ok ? a.status : 0));
    };

    before(async () => {
      cluster = await startOwnCluster();
      await adminQuery(cluster.adminUrl, 'CREATE DATABASE tributary');
      target = { kind: 'postgres', url: databaseUrl(cluster.adminUrl, 'tributary') };
      merchant = await createMerchant(target, secret, 'Prometheus');
      server = await startServer({ target, secret, env: FAULT_ENV });
      const serverAddress = new URL(server.url).host;

      const port = await freePort();
      promUrl = `http://127.0.0.1:${port}`;
      const config = join(dir.path, 'prometheus.yml');
      writeFileSync(
        config,
        [
          'global:',
          '  scrape_interval: 1s',
          '  evaluation_interval: 1s',
          'rule_files:',
          `  - ${JSON.stringify(join(REPO_ROOT, 'ops/prometheus/rules.yml'))}`,
          'scrape_configs:',
          '  - job_name: tributary',
          '    scrape_timeout: 1s',
          '    static_configs:',
          `      - targets: [${JSON.stringify(serverAddress)}]`,
          '',
        ].join('\n'),
      );
      mkdirSync(join(dir.path, 'data'));
      prometheus = spawn(
        PROMETHEUS,
        [
          `--config.file=${config}`,
          `--storage.tsdb.path=${join(dir.path, 'data')}`,
          `--web.listen-address=127.0.0.1:${port}`,
          '--log.level=warn',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      const keep = (chunk: Buffer) => {
        promOutput = (promOutput + chunk.toString()).slice(-8_192);
      };
      prometheus.stdout?.on('data', keep);
      prometheus.stderr?.on('data', keep);
    });

    after(async () => {
      if (prometheus !== undefined && prometheus.exitCode === null && prometheus.signalCode === null) {
        const gone = new Promise((resolve) => prometheus?.once('exit', resolve));
        prometheus.kill('SIGTERM');
        await Promise.race([gone, sleep(10_000)]);
        if (prometheus.exitCode === null && prometheus.signalCode === null) prometheus.kill('SIGKILL');
      }
      await server?.terminate().catch(() => server?.kill9());
      await cluster?.destroy();
      dir.remove();
    });

    it('records the error ratio and puts the database and error-ratio alerts in pending or firing; clears when the database is back', async (t) => {
      const instance = new URL(server?.url ?? '').host;
      const value = async (promql: string) => {
        const [sample] = await query(promql);
        return sample === undefined ? undefined : Number(sample.value[1]);
      };
      const idle = () => sleep(500);

      // Scraped, and the database answers.
      assert.equal(
        await until('tributary_database_up == 1', async () => value(`tributary_database_up{instance="${instance}"} == 1`), idle),
        1,
      );
      // Healthy traffic first: the error ratio is 0.
      const healthy = (await burst(40)).concat(await burst(40));
      assert.deepEqual([...new Set(healthy)], [200], 'healthy traffic answers 200');
      const ratioBefore = await until(
        'error ratio recorded',
        async () => value('job:tributary_http_server_errors:ratio_rate5m{job="tributary"}'),
        async () => void (await burst(10)),
      );
      assert.equal(ratioBefore, 0, 'no 5xx yet');

      // The database stops; API calls now answer 503.
      await cluster.stopImmediate();
      const stoppedAt = Date.now();
      const statuses: number[] = [];
      const outage = async () => {
        statuses.push(...(await burst(10)));
      };
      const ratio = await until(
        'error ratio above 5 %',
        async () => {
          const v = await value('job:tributary_http_server_errors:ratio_rate5m{job="tributary"}');
          return v !== undefined && v > 0.05 ? v : undefined;
        },
        outage,
      );
      assert.ok(ratio > 0.05 && ratio <= 1, `error ratio ${ratio}`);
      // The server reports the database down (its figures are cached for up to 5 s).
      await until('tributary_database_up == 0', async () => value(`tributary_database_up{instance="${instance}"} == 0`), outage);

      const alertState = (all: PromRule[], name: string) => all.find((r) => r.type === 'alerting' && r.name === name);
      const active = await until(
        'TributaryDatabaseUnavailable and TributaryHighErrorRatio pending or firing',
        async () => {
          const all = await rules();
          const db = alertState(all, 'TributaryDatabaseUnavailable');
          const errors = alertState(all, 'TributaryHighErrorRatio');
          const on = (r: PromRule | undefined) => r?.state === 'pending' || r?.state === 'firing';
          return on(db) && on(errors) ? { db, errors } : undefined;
        },
        outage,
      );
      t.diagnostic(
        `database stopped → both alerts ${active.db?.state}/${active.errors?.state} after ${((Date.now() - stoppedAt) / 1000).toFixed(1)} s; error ratio ${ratio.toFixed(3)}; ${statuses.length} calls answered during the outage`,
      );
      assert.deepEqual(
        active.db?.alerts?.map((a) => [a.labels['instance'], a.labels['severity']]),
        [[instance, 'critical']],
        'the alert names the instance that lost its database',
      );
      assert.ok(
        statuses.length > 0 && statuses.every((s) => s === 503),
        `during the outage every call answered 503: ${[...new Set(statuses)]}`,
      );
      // Rules that need no outage stay quiet (no false alarm from a healthy part).
      for (const quiet of ['TributaryWebhookBacklog', 'TributarySettlementExceptionsOpen', 'TributaryEmbeddedStoreDiskLow']) {
        assert.equal(alertState(await rules(), quiet)?.state, 'inactive', `${quiet} stays inactive`);
      }

      // The database comes back: database_up is 1 again and the database alert clears.
      await cluster.start();
      await until(
        'TributaryDatabaseUnavailable inactive again',
        async () => {
          const up = await value(`tributary_database_up{instance="${instance}"}`);
          const db = alertState(await rules(), 'TributaryDatabaseUnavailable');
          return up === 1 && db?.state === 'inactive' ? true : undefined;
        },
        async () => void (await burst(5)),
      );
      t.diagnostic(
        `database back → TributaryDatabaseUnavailable inactive ${((Date.now() - stoppedAt) / 1000).toFixed(1)} s after the stop`,
      );
    });
  },
);
