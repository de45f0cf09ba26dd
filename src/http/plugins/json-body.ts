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
 * `constructor.prototype` keys are refused). Any other content type is a 415.
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
      value = sjson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
    } catch {
      done(new ApiError('invalid_json', 'The body is not valid JSON.'), undefined);
      return;
    }
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      request.numberLexemes = topLevelNumberLexemes(text, EXACT_NUMBER_KEYS);
    }
    done(null, value);
  });
}
