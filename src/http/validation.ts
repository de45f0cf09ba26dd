import AjvModule, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { FieldIssue } from '../lib/error-catalogue.ts';
import { MAX_AMOUNT_MINOR } from '../lib/money.ts';
import { REQUEST_PATTERNS } from './schemas/schema-helpers.ts';

/**
 * Request validation. Bodies are validated strictly: no type coercion (a string amount stays a
 * string and is refused), no silently removed unknown fields (they are refused), all problems
 * reported at once. Query strings and path parameters arrive as text, so they are coerced.
 */
const Ajv = AjvModule.default;
const addFormats = addFormatsModule.default;

function makeAjv(coerce: boolean) {
  const ajv = new Ajv({
    allErrors: true,
    coerceTypes: coerce,
    useDefaults: coerce,
    removeAdditional: false,
    strict: false,
  });
  addFormats(ajv, ['email', 'date-time', 'uri']);
  return ajv;
}

const bodyAjv = makeAjv(false);
const textAjv = makeAjv(true);

/** Where the first NUL character (U+0000) is in a value's strings, as a JSON pointer; bounded by the body limit. */
function nulPath(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = nulPath(item, `${path}/${i}`);
      if (found !== undefined) return found;
    }
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const at = `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      if (key.includes('\u0000')) return at;
      const found = nulPath(item, at);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/**
 * No text the API takes may contain the NUL character: PostgreSQL `text` and `jsonb` cannot hold
 * it, so it would fail in the database as a 500. One rule for every body, query string and path
 * parameter of every route (docs/errors.md: `invalid_character`), checked after the schema.
 */
function refusingNul(validate: ValidateFunction): ValidateFunction {
  const wrapped = ((data: unknown) => {
    const valid = validate(data);
    wrapped.errors = validate.errors ?? null;
    if (valid !== true) return valid;
    const at = nulPath(data);
    if (at === undefined) return true;
    wrapped.errors = [{ keyword: 'nul', instancePath: at, schemaPath: '#', params: {}, message: 'contains NUL' }];
    return false;
  }) as ValidateFunction;
  wrapped.errors = null;
  return wrapped;
}

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv;
  const validate = ajv.compile(schema as object) as ValidateFunction;
  return httpPart === 'headers' ? validate : refusingNul(validate);
};

const PART_LABEL: Record<string, string> = { querystring: 'query', params: 'path', headers: 'header' };

function fieldOf(instancePath: string, part: string | undefined): string {
  const path = instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
  const prefix = part !== undefined && part !== 'body' ? `${PART_LABEL[part] ?? part}.` : '';
  return path === '' ? prefix.replace(/\.$/, '') : `${prefix}${path}`;
}

const join = (base: string, leaf: string) => (base === '' ? leaf : `${base}.${leaf}`);

function describeType(expected: unknown): string {
  const types = Array.isArray(expected) ? expected : [expected];
  const named = types.filter((t) => t !== 'null').map((t) => (t === 'integer' ? 'a whole number' : `a JSON ${t}`));
  return named.join(' or ');
}

/** One ajv error → one field issue with a stable issue code. */
export function issueFromAjv(error: ErrorObject, part: string | undefined): FieldIssue {
  const base = fieldOf(error.instancePath, part);
  const p = error.params as Record<string, unknown>;
  const propertyName = (error as { propertyName?: string }).propertyName ?? (p['propertyName'] as string | undefined);
  if (propertyName !== undefined) {
    // A key refused by `propertyNames` (the metadata key rule).
    const field = join(base, propertyName);
    if (base === 'metadata') {
      return { field, issue: 'invalid_metadata_key', message: 'metadata keys are 1-40 letters, digits or _ . : -' };
    }
    return { field, issue: 'invalid_format', message: `${field} is not an allowed key` };
  }
  switch (error.keyword) {
    case 'nul':
      return { field: base, issue: 'invalid_character', message: `${base} must not contain the NUL character (U+0000)` };
    case 'required': {
      const field = join(base, String(p['missingProperty']));
      return { field, issue: 'required', message: `${field} is required` };
    }
    case 'additionalProperties': {
      const field = join(base, String(p['additionalProperty']));
      if (base === 'metadata') {
        return { field, issue: 'invalid_metadata_key', message: 'metadata keys are 1-40 letters, digits or _ . : -' };
      }
      return { field, issue: 'unknown_field', message: `${field} is not a known field` };
    }
    case 'type': {
      if (base === '' || base === part)
        return { field: base || 'body', issue: 'invalid_type', message: 'the body must be a JSON object' };
      return { field: base, issue: 'invalid_type', message: `${base} must be ${describeType(p['type'])}` };
    }
    case 'maxLength':
      return { field: base, issue: 'too_long', message: `${base} must be at most ${String(p['limit'])} characters` };
    case 'minLength':
      return { field: base, issue: 'too_short', message: `${base} must be at least ${String(p['limit'])} character(s)` };
    case 'pattern':
      if (p['pattern'] === REQUEST_PATTERNS.noNul) {
        return { field: base, issue: 'invalid_character', message: `${base} must not contain the NUL character (U+0000)` };
      }
      return { field: base, issue: 'invalid_format', message: `${base} has an invalid format` };
    case 'format':
      if (p['format'] === 'uri') return { field: base, issue: 'invalid_url', message: `${base} must be an absolute http(s) URL` };
      return { field: base, issue: 'invalid_format', message: `${base} has an invalid format` };
    case 'minItems':
      return { field: base, issue: 'too_short', message: `${base} must have at least ${String(p['limit'])} item(s)` };
    case 'maxItems':
      return { field: base, issue: 'too_long', message: `${base} must have at most ${String(p['limit'])} items` };
    case 'enum':
    case 'const':
      return {
        field: base,
        issue: 'invalid_value',
        message: `${base} must be one of: ${((p['allowedValues'] as unknown[] | undefined) ?? []).filter((v) => v !== null).join(', ')}`,
      };
    case 'exclusiveMinimum':
    case 'minimum':
      return {
        field: base,
        issue: 'too_small',
        message: `${base} must be ${error.keyword === 'minimum' ? 'at least' : 'greater than'} ${String(p['limit'])}`,
      };
    case 'maximum':
      if (p['limit'] === Number(MAX_AMOUNT_MINOR)) {
        // The amount ceiling the document states: the same issue the exact-money parser gives.
        return {
          field: base,
          issue: 'amount_too_large',
          message: `${base} must have at most 15 significant digits in minor units`,
        };
      }
      return { field: base, issue: 'too_large', message: `${base} must be at most ${String(p['limit'])}` };
    case 'exclusiveMaximum':
      return { field: base, issue: 'too_large', message: `${base} must be at most ${String(p['limit'])}` };
    case 'maxProperties':
      return { field: base, issue: 'too_many_entries', message: `${base} has more than ${String(p['limit'])} entries` };
    default:
      return { field: base, issue: 'invalid', message: `${base} is invalid` };
  }
}

/** All ajv errors → field issues, at most one per field (the first is the most specific). */
export function issuesFromAjv(errors: readonly ErrorObject[], part: string | undefined): FieldIssue[] {
  const seen = new Set<string>();
  const out: FieldIssue[] = [];
  for (const error of errors) {
    const issue = issueFromAjv(error, part);
    if (seen.has(issue.field)) continue;
    seen.add(issue.field);
    out.push(issue);
  }
  return out;
}
