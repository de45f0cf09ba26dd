import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { maintenanceDue, type TableActivity } from '../../src/jobs/embedded-maintenance.ts';

/** PostgreSQL's defaults (PGlite's pg_settings), and a table where nothing happened. */
const DEFAULTS = {
  enabled: true,
  vacuumThreshold: 50,
  vacuumScaleFactor: 0.2,
  vacuumMaxThreshold: 100_000_000,
  insertThreshold: 1000,
  insertScaleFactor: 0.2,
  analyzeThreshold: 50,
  analyzeScaleFactor: 0.1,
  freezeMaxAge: 200_000_000,
  multixactFreezeMaxAge: 400_000_000,
} satisfies Partial<TableActivity>;
const quiet: TableActivity = {
  reltuples: 10_000,
  deadTuples: 0,
  modifiedSinceAnalyze: 0,
  insertedSinceVacuum: 0,
  xidAge: 1000,
  multixactAge: 0,
  ...DEFAULTS,
};
/** The quiet table with `change` in its numbers and `settings` in its settings. */
const due = (change: Partial<TableActivity>, settings: Partial<TableActivity> = {}) =>
  maintenanceDue({ ...quiet, ...change, ...settings });

/** The embedded store's autovacuum rule: PostgreSQL's relation_needs_vacanalyze (autovacuum.c). */
describe('maintenanceDue: what autovacuum would do to one table', () => {
  it('leaves a table alone while nothing passed a threshold', () => {
    assert.deepEqual(due({}), { vacuum: false, analyze: false });
    // 10,000 rows: dead 50 + 2,000, inserted 1,000 + 2,000, changed 50 + 1,000 are still below.
    assert.deepEqual(due({ deadTuples: 2050, insertedSinceVacuum: 3000, modifiedSinceAnalyze: 1050 }), {
      vacuum: false,
      analyze: false,
    });
  });

  it('analyses past 50 rows + 10 %, vacuums past 50 dead rows + 20 % or 1,000 inserted + 20 %', () => {
    assert.deepEqual(due({ modifiedSinceAnalyze: 1051 }), { vacuum: false, analyze: true });
    assert.deepEqual(due({ deadTuples: 2051 }), { vacuum: true, analyze: false });
    assert.deepEqual(due({ insertedSinceVacuum: 3001 }), { vacuum: true, analyze: false });
  });

  it('counts a table never vacuumed or analysed (reltuples -1) as empty', () => {
    assert.deepEqual(due({ reltuples: -1, modifiedSinceAnalyze: 51, insertedSinceVacuum: 1001 }), {
      vacuum: true,
      analyze: true,
    });
    assert.deepEqual(due({ reltuples: -1, modifiedSinceAnalyze: 50, insertedSinceVacuum: 1000 }), {
      vacuum: false,
      analyze: false,
    });
  });

  it("follows a table's own settings: the queue tables of migration 0010 after a fixed number of changes", () => {
    const queue = { vacuumScaleFactor: 0, vacuumThreshold: 5000, analyzeScaleFactor: 0, analyzeThreshold: 2000 };
    assert.deepEqual(due({ reltuples: 1_000_000, deadTuples: 5001, modifiedSinceAnalyze: 2001 }, queue), {
      vacuum: true,
      analyze: true,
    });
    assert.deepEqual(due({ reltuples: 1_000_000, deadTuples: 5000, modifiedSinceAnalyze: 2000 }, queue), {
      vacuum: false,
      analyze: false,
    });
  });

  it('caps the dead-row threshold at autovacuum_vacuum_max_threshold, unless it is -1', () => {
    const huge = { reltuples: 1_000_000_000, deadTuples: 100_000_001 };
    assert.equal(due(huge).vacuum, true);
    assert.equal(due(huge, { vacuumMaxThreshold: -1 }).vacuum, false);
  });

  it('never vacuums for inserts when the insert threshold is -1', () => {
    assert.equal(due({ insertedSinceVacuum: 1_000_000 }, { insertThreshold: -1 }).vacuum, false);
  });

  it('vacuums before transaction ids or multixacts could wrap around, even where autovacuum is off', () => {
    assert.deepEqual(due({ xidAge: 200_000_001 }), { vacuum: true, analyze: false });
    assert.deepEqual(due({ multixactAge: 400_000_001 }), { vacuum: true, analyze: false });
    assert.deepEqual(due({ xidAge: 200_000_001, modifiedSinceAnalyze: 1e9 }, { enabled: false }), {
      vacuum: true,
      analyze: false,
    });
    assert.deepEqual(due({ deadTuples: 1e9, modifiedSinceAnalyze: 1e9 }, { enabled: false }), {
      vacuum: false,
      analyze: false,
    });
  });
});
