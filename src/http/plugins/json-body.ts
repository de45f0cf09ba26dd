import type { FastifyInstance } from 'fastify';
import sjson from 'secure-json-parse';
import { ApiError } from '../../lib/error-catalogue.ts';
import { topLevelNumberLexemes } from '../../lib/json-lexeme.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Source text of top-level JSON numbers we need exactly (the amounts). */
    numberLexemes: Map<string, string> | null;
  }
}

/** Top-level keys whose numbers are money: their exact text is kept for the money parser. */
const EXACT_NUMBER_KEYS: ReadonlySet<string> = new Set(['amount', 'amount_min', 'amount_max']);

/**
 * The only body parser: `application/json` (any charset parameter), read as text up to the body
 * limit (larger → 413), parsed with prototype-poisoning protection (`__proto__` and
 * `constructor.prototype` keys are refused as `invalid_request`, issue `forbidden_key`). Any other content type is a 415.
 */
export function registerJsonBody(app: FastifyInstance, bodyLimitBytes: number): void {
  app.decorateRequest('numberLexemes', null);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: bodyLimitBytes }, (request, body, done) => {
    const text = body as string;
    if (text.trim() === '') {
      done(new ApiError('invalid_json', 'The body is empty; send a JSON object.'), undefined);
      return;
    }
    let value: unknown;
    try {
      // JSON.parse makes `__proto__` an own property (no pollution here); the scan below refuses it
      // before anything else sees the object.
      value = JSON.parse(text) as unknown;
    } catch {
      done(new ApiError('invalid_json', 'The body is not valid JSON.'), undefined);
      return;
    }
    try {
      if (typeof value === 'object' && value !== null) {
        sjson.scan(value as Record<string, unknown>, { protoAction: 'error', constructorAction: 'error' });
      }
    } catch {
      // Valid JSON, refused on purpose: say which key and why, not "not valid JSON".
      const path = forbiddenKeyPath(value, '', 0) ?? '__proto__';
      const key = path.split('.').at(-1) === 'prototype' ? 'constructor.prototype' : '__proto__';
      done(
        new ApiError(
          'invalid_request',
          `The body has a "${key}" key, which is refused (prototype poisoning); remove or rename it.`,
          {
            details: [{ field: path, issue: 'forbidden_key', message: `"${key}" keys are refused wherever they are` }],
          },
        ),
        undefined,
      );
      return;
    }
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      request.numberLexemes = topLevelNumberLexemes(text, EXACT_NUMBER_KEYS);
    }
    done(null, value);
  });
}

/** Where the first forbidden key is (`a.b.__proto__`), as secure-json-parse defines them; bounded by the body's depth. */
function forbiddenKeyPath(value: unknown, prefix: string, depth: number): string | undefined {
  if (typeof value !== 'object' || value === null || depth > 256) return undefined;
  for (const key of Object.keys(value)) {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    const child = (value as Record<string, unknown>)[key];
    if (key === '__proto__') return path;
    if (key === 'constructor' && typeof child === 'object' && child !== null && Object.hasOwn(child, 'prototype')) {
      return `${path}.prototype`;
    }
    const inner = forbiddenKeyPath(child, path, depth + 1);
    if (inner !== undefined) return inner;
  }
  return undefined;
}
