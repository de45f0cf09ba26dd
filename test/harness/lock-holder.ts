import { lockDataDir, markDataDirsStopping } from '../../src/db/data-dir-lock.ts';

/**
 * A process that takes a data directory's lock as a Tributary server would, for the lock tests:
 * prints `{"result":"locked","pid":…}` or `{"result":"refused","message":…}` on one line, then holds
 * the lock until killed. On SIGTERM it marks itself stopping, as the server's shutdown does, and
 * exits after LOCK_HOLDER_DRAIN_MS.
 */
const dataDir = process.argv[2];
if (dataDir === undefined) throw new Error('usage: lock-holder.ts DATA_DIR');
try {
  const mechanism = process.env['LOCK_HOLDER_MECHANISM'] === 'pidfile' ? 'pidfile' : 'flock';
  await lockDataDir(dataDir, 'lock-holder', { mechanism });
  // The handler before the line: a test may send SIGTERM the moment it reads it.
  process.on('SIGTERM', () => {
    markDataDirsStopping();
    setTimeout(() => process.exit(0), Number(process.env['LOCK_HOLDER_DRAIN_MS'] ?? '0'));
  });
  process.stdout.write(`${JSON.stringify({ result: 'locked', pid: process.pid })}\n`);
  setInterval(() => undefined, 60_000);
} catch (error) {
  process.stdout.write(`${JSON.stringify({ result: 'refused', pid: process.pid, message: (error as Error).message })}\n`);
  process.exit(3);
}
