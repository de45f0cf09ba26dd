import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/lib/logger.ts';

/** A debug logger whose every line the test reads back (to show, say, that no secret is logged). */
export function captureLogs(): { log: Logger; text(): string } {
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString();
      done();
    },
  });
  return { log: createLogger('debug', sink), text: () => text };
}
