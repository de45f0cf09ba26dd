/**
 * The frontend messages of PostgreSQL's extended query protocol that the embedded store sends to
 * PGlite (https://www.postgresql.org/docs/current/protocol-message-formats.html), each batch
 * encoded into one buffer (decision 0029), and the backend's answer to a run read back
 * (`readAnswer`, decision 0031).
 *
 * Why not PGlite's bundled serializer: its `Writer` is compiled with private fields lowered to
 * WeakMaps, and every C string it writes (`addCString`: a statement's name, its text, a portal)
 * increments the offset through esbuild's `__privateWrapper`, an object literal with a getter and a
 * setter made per call. On Node 20 and 22 each such object leaves garbage that scavenges keep
 * and only a full collection frees; with PGlite's locks (pglite-store.ts) it made the database
 * thread collect in full every 0.5–0.7 s under a paced GET load, a pause for every query in flight
 * (docs/benchmarks.md, "Issue 27, twelfth session").
 *
 * Parameters are sent as text (PGlite's serializers produce strings) or NULL; results are asked
 * for as text, as PGlite's own `query()` asks for them.
 */

export type FrontendMessage =
  | { type: 'parse'; name: string; text: string; types: readonly number[] }
  | { type: 'bind'; statement: string; values: readonly (string | null)[] }
  | { type: 'describe'; target: 'S' | 'P'; name: string }
  | { type: 'close'; name: string }
  | { type: 'execute' }
  | { type: 'sync' };

/** Byte 1: the message type; bytes 2–5: the length of the rest, itself included. */
const HEADER = 5;

function sizeOf(message: FrontendMessage): number {
  switch (message.type) {
    case 'parse':
      return HEADER + Buffer.byteLength(message.name) + 1 + Buffer.byteLength(message.text) + 1 + 2 + 4 * message.types.length;
    case 'bind': {
      // portal '' (1), statement name + NUL, 0 parameter format codes (2), parameter count (2),
      // each parameter's length (4) and bytes, 0 result format codes (2).
      let size = HEADER + 1 + Buffer.byteLength(message.statement) + 1 + 2 + 2 + 2;
      for (const value of message.values) size += 4 + (value === null ? 0 : Buffer.byteLength(value));
      return size;
    }
    case 'describe':
    case 'close':
      return HEADER + 1 + Buffer.byteLength(message.name) + 1;
    case 'execute':
      return HEADER + 1 + 4; // portal '' and no row limit
    case 'sync':
      return HEADER;
  }
}

const TYPE_BYTE = { parse: 0x50, bind: 0x42, describe: 0x44, close: 0x43, execute: 0x45, sync: 0x53 } as const;

/** The messages, in order, as one buffer for `execProtocol`. */
export function encodeMessages(messages: readonly FrontendMessage[]): Buffer {
  let total = 0;
  for (const message of messages) total += sizeOf(message);
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  const cstring = (text: string) => {
    at += out.write(text, at, 'utf8');
    out[at++] = 0;
  };
  for (const message of messages) {
    const start = at;
    out[at] = TYPE_BYTE[message.type];
    at += HEADER; // the length is written once the body is
    switch (message.type) {
      case 'parse':
        cstring(message.name);
        cstring(message.text);
        at = out.writeInt16BE(message.types.length, at);
        for (const oid of message.types) at = out.writeUInt32BE(oid, at);
        break;
      case 'bind':
        cstring(''); // the unnamed portal
        cstring(message.statement);
        at = out.writeInt16BE(0, at); // every parameter in text format
        at = out.writeInt16BE(message.values.length, at);
        for (const value of message.values) {
          if (value === null) {
            at = out.writeInt32BE(-1, at);
            continue;
          }
          const lengthAt = at;
          at += 4;
          const written = out.write(value, at, 'utf8');
          out.writeInt32BE(written, lengthAt);
          at += written;
        }
        at = out.writeInt16BE(0, at); // every result column in text format
        break;
      case 'describe':
        out[at++] = message.target === 'S' ? 0x53 : 0x50;
        cstring(message.name);
        break;
      case 'close':
        out[at++] = 0x53; // a prepared statement
        cstring(message.name);
        break;
      case 'execute':
        cstring(''); // the unnamed portal
        at = out.writeInt32BE(0, at); // all rows
        break;
      case 'sync':
        break;
    }
    out.writeInt32BE(at - start - 1, start + 1);
  }
  return out;
}

/** A result column: its name and its type's OID, as a RowDescription gives them. */
export interface WireField {
  name: string;
  dataTypeID: number;
}

/** A run's answer: the columns, if the answer described them, and each row's values as text. */
export interface Answer {
  fields: WireField[] | undefined;
  rows: (string | null)[][];
}

/** What a run's answer may hold besides rows: ParseComplete, BindComplete, CloseComplete, NoData, CommandComplete, EmptyQueryResponse, PortalSuspended, ReadyForQuery. */
const PLAIN = new Set([0x31, 0x32, 0x33, 0x6e, 0x43, 0x49, 0x73, 0x5a]);
const ROW_DESCRIPTION = 0x54;
const DATA_ROW = 0x44;

/**
 * Reads the backend's answer to one run (decision 0031): its row description, if any, and its data
 * rows, straight from the bytes, without a message object per row. Returns `undefined` when the
 * answer holds anything else — an ErrorResponse, a notice, a notification — or is cut short: the
 * caller hands those bytes to PGlite's own parser, so that an error is exactly the error PGlite
 * makes of it.
 */
export function readAnswer(bytes: Buffer): Answer | undefined {
  let fields: WireField[] | undefined;
  const rows: (string | null)[][] = [];
  let at = 0;
  while (at < bytes.length) {
    if (at + HEADER > bytes.length) return undefined;
    const type = bytes[at] as number;
    const end = at + 1 + bytes.readInt32BE(at + 1);
    if (end > bytes.length || end < at + HEADER) return undefined;
    let p = at + HEADER;
    if (type === DATA_ROW) {
      const count = bytes.readInt16BE(p);
      p += 2;
      const values = new Array<string | null>(count);
      for (let i = 0; i < count; i++) {
        const length = bytes.readInt32BE(p);
        p += 4;
        if (length < 0) values[i] = null;
        else {
          values[i] = bytes.toString('utf8', p, p + length);
          p += length;
        }
      }
      rows.push(values);
    } else if (type === ROW_DESCRIPTION) {
      const count = bytes.readInt16BE(p);
      p += 2;
      fields = new Array<WireField>(count);
      for (let i = 0; i < count; i++) {
        const nul = bytes.indexOf(0, p);
        const name = bytes.toString('utf8', p, nul);
        // table OID (4), column number (2), then the type's OID
        const dataTypeID = bytes.readUInt32BE(nul + 1 + 6);
        fields[i] = { name, dataTypeID };
        p = nul + 1 + 18; // type OID (4), type size (2), modifier (4), format (2)
      }
    } else if (!PLAIN.has(type)) return undefined;
    at = end;
  }
  return { fields, rows };
}
