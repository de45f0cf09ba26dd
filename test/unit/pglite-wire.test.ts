import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { protocol } from '@electric-sql/pglite';
import { encodeMessages, readAnswer } from '../../src/db/pglite-wire.ts';

const { serialize } = protocol;

/** A backend message: its type byte, its length (itself included) and its body. */
function backendMessage(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const header = Buffer.alloc(5);
  header.write(type, 0, 'latin1');
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}
const be16 = (n: number) => Buffer.from([(n >> 8) & 0xff, n & 0xff]);
const be32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};
const cstr = (s: string) => Buffer.from(`${s}\0`, 'utf8');
const rowDescription = (fields: [string, number][]) =>
  backendMessage(
    'T',
    be16(fields.length),
    ...fields.map(([name, oid]) => Buffer.concat([cstr(name), be32(16384), be16(1), be32(oid), be16(-1), be32(-1), be16(0)])),
  );
const dataRow = (values: (string | null)[]) =>
  backendMessage(
    'D',
    be16(values.length),
    ...values.map((v) => (v === null ? be32(-1) : Buffer.concat([be32(Buffer.byteLength(v)), Buffer.from(v, 'utf8')]))),
  );
/** What PGlite's own parser makes of the same bytes. */
function pgliteMessages(bytes: Buffer) {
  const out: { name: string; fields?: unknown[] }[] = [];
  new protocol.Parser().parse(bytes, (m) => out.push(m as never));
  return out;
}
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

  it("reads a run's answer as PGlite's parser reads it: columns, rows, text of any width and NULL", () => {
    const answer = Buffer.concat([
      backendMessage('1'),
      backendMessage('2'),
      rowDescription([
        ['id', 25],
        ['amount', 20],
        ['catatan_é', 3802],
      ]),
      dataRow(['pay_1', '10000', '{"a":"Rp 1.000 — 𝄞"}']),
      dataRow(['pay_2', null, '']),
      backendMessage('C', cstr('SELECT 2')),
      backendMessage('Z', Buffer.from('I')),
    ]);
    const theirs = pgliteMessages(answer);
    const read = readAnswer(answer);
    assert.ok(read !== undefined);
    const description = theirs.find((m) => m.name === 'rowDescription') as unknown as {
      fields: { name: string; dataTypeID: number }[];
    };
    assert.deepEqual(
      read.fields,
      description.fields.map(({ name, dataTypeID }) => ({ name, dataTypeID })),
    );
    assert.deepEqual(
      read.rows,
      theirs.filter((m) => m.name === 'dataRow').map((m) => m.fields),
    );
    assert.deepEqual(read.rows[1], ['pay_2', null, '']);
    // A named statement's run carries no row description: rows only.
    const named = readAnswer(
      Buffer.concat([
        backendMessage('2'),
        dataRow(['x']),
        backendMessage('C', cstr('SELECT 1')),
        backendMessage('Z', Buffer.from('I')),
      ]),
    );
    assert.deepEqual(named, { fields: undefined, rows: [['x']] });
  });

  it("leaves an error, a notice or a cut-short answer to PGlite's parser (returns nothing)", () => {
    const error = backendMessage('E', Buffer.from('SERROR\0C23505\0Mduplicate key\0\0', 'utf8'));
    const notice = backendMessage('N', Buffer.from('SNOTICE\0C00000\0Mhello\0\0', 'utf8'));
    const ready = backendMessage('Z', Buffer.from('I'));
    assert.equal(readAnswer(Buffer.concat([backendMessage('2'), error, ready])), undefined);
    assert.equal(readAnswer(Buffer.concat([backendMessage('2'), notice, dataRow(['x']), ready])), undefined);
    const whole = Buffer.concat([backendMessage('2'), dataRow(['pay_1', 'x']), ready]);
    for (const cut of [1, 3, 7, whole.length - 3]) assert.equal(readAnswer(whole.subarray(0, cut)), undefined, `cut at ${cut}`);
    assert.equal(pgliteMessages(Buffer.concat([error, ready]))[0]?.name, 'error', "PGlite's parser makes an error of it");
  });
});
