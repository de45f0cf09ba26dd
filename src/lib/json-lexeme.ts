/**
 * Finds the source text of the number values of chosen top-level keys in a JSON document.
 *
 * JSON.parse turns `10.005` into the nearest double and loses the text that tells us whether the
 * client sent too many decimals. The body has already been parsed successfully when this runs, so
 * this scanner only needs to track strings and nesting depth; it never validates JSON itself.
 * It is linear in the body length (bodies are capped by the HTTP body limit).
 *
 * For a key given more than once, the last occurrence wins, as in JSON.parse.
 */
export function topLevelNumberLexemes(json: string, keys: ReadonlySet<string>): Map<string, string> {
  const found = new Map<string, string>();
  let depth = 0;
  let i = 0;
  const n = json.length;
  let expectingKey = false; // inside the top-level object, at a position where a key may start
  let pendingKey: string | null = null; // the key whose value comes next, if it is one we want
  while (i < n) {
    const ch = json.charCodeAt(i);
    if (ch === 0x22 /* " */) {
      const end = endOfString(json, i);
      if (depth === 1 && expectingKey) {
        // Keys may contain escapes (e.g. "\u0061mount"): decode exactly as JSON.parse would.
        const key = JSON.parse(json.slice(i, end)) as string;
        pendingKey = keys.has(key) ? key : null;
        expectingKey = false;
      }
      i = end;
      continue;
    }
    if (ch === 0x7b /* { */ || ch === 0x5b /* [ */) {
      depth += 1;
      if (depth === 1 && ch === 0x7b) expectingKey = true;
      pendingKey = null;
      i += 1;
      continue;
    }
    if (ch === 0x7d /* } */ || ch === 0x5d /* ] */) {
      depth -= 1;
      i += 1;
      continue;
    }
    if (ch === 0x2c /* , */) {
      if (depth === 1) expectingKey = true;
      pendingKey = null;
      i += 1;
      continue;
    }
    if (depth === 1 && pendingKey !== null && (ch === 0x2d /* - */ || (ch >= 0x30 && ch <= 0x39))) {
      let end = i + 1;
      while (end < n && isNumberChar(json.charCodeAt(end))) end += 1;
      found.set(pendingKey, json.slice(i, end));
      pendingKey = null;
      i = end;
      continue;
    }
    i += 1;
  }
  return found;
}

function endOfString(json: string, start: number): number {
  let i = start + 1;
  while (i < json.length) {
    const ch = json.charCodeAt(i);
    if (ch === 0x5c /* \ */) {
      i += 2;
      continue;
    }
    if (ch === 0x22) return i + 1;
    i += 1;
  }
  return json.length;
}

function isNumberChar(ch: number): boolean {
  return (ch >= 0x30 && ch <= 0x39) || ch === 0x2e || ch === 0x65 || ch === 0x45 || ch === 0x2b || ch === 0x2d;
}
