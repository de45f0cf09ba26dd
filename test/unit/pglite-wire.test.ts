import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { protocol } from '@electric-sql/pglite';
import { encodeMessages } from '../../src/db/pglite-wire.ts';

const { serialize } = protocol;
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

/**
 * The embedded store's own encoding of the frontend messages (decision 0029) is the protocol's:
 * byte for byte what PGlite's bundled serializer writes where both write the same message, and for
 * Bind (where we send no per-parameter format codes, meaning "all text") a message that decodes to
 * the same statement, parameters and formats.
 */
describe('pglite-wire', () => {
  it('writes Parse, Describe, Close, Execute and Sync as PGlite does, one message after another in one buffer', () => {
    const text = "SELECT * FROM payments WHERE id = $1 AND note = 'café — €'";
    const ours = encodeMessages([
      { type: 'close', name: 'tributary_1' },
      { type: 'parse', name: 'tributary_2', text, types: [25, 20] },
      { type: 'describe', target: 'S', name: 'tributary_2' },
      { type: 'describe', target: 'P', name: '' },
      { type: 'execute' },
      { type: 'sync' },
    ]);
    const theirs = Buffer.concat([
      serialize.close({ type: 'S', name: 'tributary_1' }),
      serialize.parse({ name: 'tributary_2', text, types: [25, 20] }),
      serialize.describe({ type: 'S', name: 'tributary_2' }),
      serialize.describe({ type: 'P' }),
      serialize.execute({}),
      serialize.sync(),
    ]);
    assert.equal(hex(ours), hex(theirs));
  });

  it('writes Bind with text parameters of any width and NULL, lengths in bytes', () => {
    const values = ['pay_1', null, 'Rp 1.000 — 𝄞', ''];
    const bind = encodeMessages([{ type: 'bind', statement: 'tributary_7', values }]);
    let at = 0;
    const byte = () => bind[at++] as number;
    const int16 = () => ((at += 2), bind.readInt16BE(at - 2));
    const int32 = () => ((at += 4), bind.readInt32BE(at - 4));
    const cstring = () => {
      const end = bind.indexOf(0, at);
      const s = bind.toString('utf8', at, end);
      at = end + 1;
      return s;
    };
    assert.equal(String.fromCharCode(byte()), 'B');
    assert.equal(int32(), bind.length - 1, 'the length counts itself and the body');
    assert.equal(cstring(), '', 'the unnamed portal');
    assert.equal(cstring(), 'tributary_7');
    assert.equal(int16(), 0, 'no parameter format codes: all text');
    assert.equal(int16(), values.length);
    const decoded = values.map(() => {
      const length = int32();
      if (length === -1) return null;
      at += length;
      return bind.toString('utf8', at - length, at);
    });
    assert.deepEqual(decoded, values);
    assert.equal(int16(), 0, 'no result format codes: all text');
    assert.equal(at, bind.length, 'nothing after the message');
  });
});
