import { readFileSync, writeFileSync } from 'node:fs';
import { allCurrencyCodes, minorUnitDigits } from '../src/lib/currencies.ts';
import { ERROR_CATALOGUE } from '../src/lib/error-catalogue.ts';
import { loadOpenApiText, openApiSha256, type OpenApiDocument, type Parameter, type Schema } from './gen-sdk-types.ts';

/**
 * Generates sdk-python/src/tributary/_generated.py — every type of the Python SDK that the API
 * already describes — from the OpenAPI document the app itself serves (`GET /openapi.json`, built
 * the way scripts/gen-sdk-types.ts builds it for the Node SDK), from the error catalogue and from
 * the currency table. Nothing of it is written by hand, so the SDK cannot drift from the server:
 * `--check` exits 1 when the committed file differs from what the document produces.
 *
 * It writes one TypedDict per object schema (components, request bodies, queries, webhook events),
 * a Literal alias per enum, the OPERATIONS table the client builds every request from, the error
 * codes with their statuses, the minor units of every currency (amount checks) and the names of the
 * fields that hold money (every `type: number` property: they are parsed and sent as Decimal).
 *
 *   node --import tsx scripts/gen-sdk-python.ts           # write the file
 *   node --import tsx scripts/gen-sdk-python.ts --check   # exit 1 on drift
 */

export const PYTHON_TYPES_PATH = 'sdk-python/src/tributary/_generated.py';

/** Operations that are not the merchant's API (the payer's page, providers' notifications): no types. */
const EXCLUDED_TAGS = new Set(['payer page', 'providers']);
const REF_PREFIX = '#/components/schemas/';
/** Component names that would shadow a Python builtin inside the SDK get another name. */
const RENAMED: Record<string, string> = { Error: 'ErrorBody' };
/** Nicer names for a few inline objects than the derived `ParentFieldItem`. */
const NAMED_INLINE: Record<string, string> = {
  ReconciliationLineListDataItem: 'ReconciliationLine',
  BalanceBalancesItem: 'BalanceLine',
};
const PY_KEYWORDS = new Set(
  (
    'False None True and as assert async await break class continue def del elif else except finally for from global if ' +
    'import in is lambda nonlocal not or pass raise return try while with yield'
  ).split(' '),
);
/** Generated lines stay within this width (wrapped where they would not). */
const WIDTH = 100;

const pascal = (s: string) =>
  s
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w.length > 0)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');

const componentName = (name: string) => RENAMED[name] ?? name;
const pyString = (s: string) => JSON.stringify(s); // a JSON string of ASCII-safe text is a valid Python literal
const isIdentifier = (k: string) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(k) && !PY_KEYWORDS.has(k);

/** `#:` comment lines (Sphinx's attribute docs) for a description, wrapped to the width. */
function comment(description: unknown, indent: string): string[] {
  if (typeof description !== 'string' || description.trim() === '') return [];
  return description
    .trim()
    .split('\n')
    .flatMap((line) => wrapWords(line, WIDTH - indent.length - 3))
    .map((line) => `${indent}#: ${line}`.trimEnd());
}

function docstring(description: unknown, indent: string): string[] {
  if (typeof description !== 'string' || description.trim() === '') return [];
  const text = description.trim().replace(/\\/g, '\\\\').replace(/"""/g, '\\"\\"\\"');
  const lines = text.split('\n').flatMap((line) => wrapWords(line, WIDTH - indent.length - 6));
  if (lines.length === 1) return [`${indent}"""${lines[0]}"""`];
  return [`${indent}"""${lines[0]}`, ...lines.slice(1).map((l) => `${indent}${l}`.trimEnd()), `${indent}"""`];
}

function wrapWords(line: string, width: number): string[] {
  const out: string[] = [];
  let current = '';
  for (const word of line.split(' ')) {
    if (current !== '' && current.length + 1 + word.length > width) {
      out.push(current);
      current = word;
    } else {
      current = current === '' ? word : `${current} ${word}`;
    }
  }
  out.push(current);
  return out;
}

/** `Literal[...]` of some values, wrapped over several lines when long. */
function literal(values: unknown[], indent: string, prefixLength = 20): string {
  const items = values.map((v) =>
    typeof v === 'string' ? pyString(v) : v === true ? 'True' : v === false ? 'False' : String(v),
  );
  const flat = `Literal[${items.join(', ')}]`;
  if (indent.length + prefixLength + flat.length <= WIDTH) return flat;
  return `Literal[\n${items.map((i) => `${indent}    ${i},`).join('\n')}\n${indent}]`;
}

/** Whether a number in this position is one the caller sends (Decimal or int) or receives (Decimal). */
type Direction = 'in' | 'out';

/**
 * JSON Schema (the subset TypeBox emits) → Python type expressions, defining named types (TypedDicts
 * and Literal aliases) on the way, each before its first use.
 */
class PythonTypes {
  readonly definitions: string[] = [];
  /** The names defined, in order (the module's `__all__`). */
  readonly names: string[] = [];
  readonly #defined = new Map<string, string>();
  readonly #components: Record<string, Schema>;
  readonly #componentsDone = new Set<string>();
  /** Every property of `type: number`, and of `type: integer`, by name: money is told apart by name. */
  readonly numberFields = new Set<string>();
  readonly integerFields = new Set<string>();

  constructor(components: Record<string, Schema>) {
    this.#components = components;
  }

  /** Defines `name` once; a second definition must be the same text (shared inline shapes). */
  #define(name: string, text: string): string {
    const existing = this.#defined.get(name);
    if (existing !== undefined) {
      if (existing !== text) throw new Error(`two different types would be named ${name}`);
      return name;
    }
    this.#defined.set(name, text);
    this.definitions.push(text);
    this.names.push(name);
    return name;
  }

  component(name: string): string {
    const schema = this.#components[name];
    if (schema === undefined) throw new Error(`unknown component ${name}`);
    if (!this.#componentsDone.has(name)) {
      this.#componentsDone.add(name);
      this.#object(componentName(name), schema, 'out');
    }
    return componentName(name);
  }

  /** The type of a schema in the position `hint` names (used for the names of inline types). */
  type(schema: Schema | boolean | undefined, hint: string, direction: Direction, indent = ''): string {
    if (schema === undefined || schema === true) return 'Any';
    if (schema === false) return 'NoReturn';
    const ref = schema['$ref'];
    if (typeof ref === 'string') {
      if (!ref.startsWith(REF_PREFIX)) throw new Error(`unsupported $ref ${ref}`);
      return this.component(ref.slice(REF_PREFIX.length));
    }
    if ('const' in schema) return literal([schema['const']], indent);
    if (Array.isArray(schema['enum'])) {
      const values = schema['enum'] as unknown[];
      const present = values.filter((v) => v !== null);
      const nullable = present.length < values.length ? ' | None' : '';
      if (present.length < 2) return `${literal(present, indent)}${nullable}`;
      const name = this.#define(hint, `${hint} = ${literal(present, '', hint.length + 3)}\n`);
      return `${name}${nullable}`;
    }
    const alternatives = (schema['anyOf'] ?? schema['oneOf']) as Schema[] | undefined;
    if (alternatives !== undefined) {
      const parts = alternatives.map((alt, i) => {
        const title = typeof alt['title'] === 'string' ? pascal(alt['title']) : `${hint}${i + 1}`;
        return this.type(alt, title, direction, indent);
      });
      return union(parts);
    }
    const type = schema['type'];
    if (Array.isArray(type)) return union(type.map((t) => this.type({ ...schema, type: t }, hint, direction, indent)));
    switch (type) {
      case 'string':
        return 'str';
      case 'number':
        return direction === 'in' ? 'Decimal | int' : 'Decimal';
      case 'integer':
        return 'int';
      case 'boolean':
        return 'bool';
      case 'null':
        return 'None';
      case 'array':
        return `list[${this.type(schema['items'] as Schema | undefined, `${hint}Item`, direction, indent)}]`;
      case 'object':
      case undefined:
        if (type === undefined && schema['properties'] === undefined) return 'Any';
        return this.#object(NAMED_INLINE[hint] ?? hint, schema, direction);
      default:
        throw new Error(`unsupported schema type ${String(type)}`);
    }
  }

  /** An object schema: a TypedDict when it names properties, else a `dict[str, …]`. */
  #object(name: string, schema: Schema, direction: Direction): string {
    const properties = (schema['properties'] ?? {}) as Record<string, Schema>;
    const required = new Set((schema['required'] ?? []) as string[]);
    const additional = schema['additionalProperties'] as Schema | boolean | undefined;
    const names = Object.keys(properties);
    if (names.length === 0) {
      if (additional === false) return 'dict[str, NoReturn]';
      return `dict[str, ${this.type(additional === undefined ? true : additional, `${name}Value`, direction)}]`;
    }
    const fields = names.map((field) => {
      const p = properties[field]!;
      this.#noteNumber(field, p);
      const t = this.type(p, `${name}${pascal(field)}`, direction, '    ');
      return { field, type: required.has(field) ? t : `NotRequired[${t}]`, description: p['description'] };
    });
    const lines: string[] = [];
    if (fields.every((f) => isIdentifier(f.field))) {
      lines.push(`class ${name}(TypedDict):`);
      const doc = docstring(schema['description'], '    ');
      lines.push(...doc, ...(doc.length > 0 ? [''] : []));
      for (const f of fields) {
        lines.push(...comment(f.description, '    '));
        lines.push(`    ${f.field}: ${f.type}`);
      }
    } else {
      // A field named like a Python keyword (`from`) needs the functional syntax. Its values are
      // evaluated at once, which is why every type is defined before its first use.
      lines.push(...comment(schema['description'], ''));
      lines.push(`${name} = TypedDict(`);
      lines.push(`    ${pyString(name)},`);
      lines.push('    {');
      for (const f of fields) {
        lines.push(...comment(f.description, '        '));
        lines.push(`        ${pyString(f.field)}: ${f.type},`);
      }
      lines.push('    },');
      lines.push(')');
    }
    return this.#define(name, `${lines.join('\n')}\n`);
  }

  #noteNumber(field: string, schema: Schema): void {
    const types = new Set<unknown>();
    const collect = (s: Schema) => {
      const t = s['type'];
      for (const one of Array.isArray(t) ? t : [t]) types.add(one);
      for (const alt of ((s['anyOf'] ?? s['oneOf']) as Schema[] | undefined) ?? []) collect(alt);
    };
    collect(schema);
    if (types.has('number')) this.numberFields.add(field);
    if (types.has('integer')) this.integerFields.add(field);
  }
}

function union(parts: string[]): string {
  const unique = [...new Set(parts.flatMap((p) => p.split(' | ')))];
  // None last, as people write it.
  unique.sort((a, b) => (a === 'None' ? 1 : 0) - (b === 'None' ? 1 : 0));
  return unique.join(' | ');
}

function queryType(types: PythonTypes, name: string, params: Parameter[]): string {
  // A query's money (`amount` of GET /payment_method) is sent from a Decimal like a body's, though
  // the document types it as text (a query string has no numbers).
  const properties = Object.fromEntries(
    params.map((p) => {
      const schema = types.numberFields.has(p.name) ? { ...p.schema, type: 'number' } : p.schema;
      return [p.name, { ...schema, ...(p.description === undefined ? {} : { description: p.description }) }];
    }),
  );
  const required = params.filter((p) => p.required === true).map((p) => p.name);
  return types.type({ type: 'object', additionalProperties: false, required, properties }, name, 'in');
}

interface OperationRow {
  id: string;
  method: string;
  path: string;
  pathParams: string[];
  idempotencyKey: boolean;
  body: boolean;
  response: 'json' | 'text';
}

function renderOperations(api: OpenApiDocument, types: PythonTypes): { rows: OperationRow[]; aliases: string[] } {
  const rows: OperationRow[] = [];
  const aliases: string[] = [];
  for (const [path, methods] of Object.entries(api.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const id = op.operationId;
      if (id === undefined) continue; // operators' probes (/healthz, /readyz) are not API operations
      if ((op.tags ?? []).some((t) => EXCLUDED_TAGS.has(t))) continue;
      const name = pascal(id);
      const params = op.parameters ?? [];
      const query = params.filter((p) => p.in === 'query');
      const bodySchema = op.requestBody?.content['application/json']?.schema;
      const successes = Object.entries(op.responses).filter(([status]) => /^2\d\d$/.test(status));
      if (successes.length === 0) throw new Error(`${id}: no 2xx response`);
      const json = successes.every(([, r]) => r.content?.['application/json'] !== undefined);
      if (bodySchema !== undefined) types.type({ ...bodySchema, description: op.summary }, `${name}Body`, 'in');
      if (query.length > 0) queryType(types, `${name}Query`, query);
      const responses = union(
        successes.map(([, r]) => {
          const schema = r.content?.['application/json']?.schema;
          return schema === undefined ? 'str' : types.type(schema, `${name}Response`, 'out');
        }),
      );
      if (responses !== `${name}Response`) {
        aliases.push(`${name}Response = ${responses}`);
        types.names.push(`${name}Response`);
      }
      rows.push({
        id,
        method: method.toUpperCase(),
        path,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        idempotencyKey: params.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key'),
        body: bodySchema !== undefined,
        response: json ? 'json' : 'text',
      });
    }
  }
  return { rows, aliases };
}

function renderEvents(api: OpenApiDocument, types: PythonTypes): { names: string[]; eventTypes: string[] } {
  const names: string[] = [];
  const eventTypes: string[] = [];
  for (const [type, item] of Object.entries(api.webhooks ?? {})) {
    const schema = item.post?.requestBody?.content['application/json']?.schema;
    if (schema === undefined) throw new Error(`webhook ${type}: no JSON body`);
    names.push(types.type({ ...schema, description: item.post?.description }, `${pascal(type)}Event`, 'out'));
    eventTypes.push(type);
  }
  return { names, eventTypes };
}

function pyTuple(items: string[]): string {
  if (items.length === 0) return '()';
  return `(${items.map(pyString).join(', ')}${items.length === 1 ? ',' : ''})`;
}

/** `{k: v, …}` entries a few to a line. */
function packed(entries: string[], indent: string): string {
  const lines: string[] = [];
  let current = '';
  for (const entry of entries) {
    if (current !== '' && indent.length + current.length + 1 + entry.length > WIDTH) {
      lines.push(`${indent}${current}`);
      current = entry;
    } else {
      current = current === '' ? entry : `${current} ${entry}`;
    }
  }
  if (current !== '') lines.push(`${indent}${current}`);
  return lines.join('\n');
}

export function renderPythonTypesFrom(openApiText: string): string {
  const api = JSON.parse(openApiText) as OpenApiDocument;
  const errorSchema = api.components.schemas['Error'] as { properties: { code: { enum: string[] } } } | undefined;
  const codes = errorSchema?.properties.code.enum ?? [];
  const catalogue = Object.keys(ERROR_CATALOGUE);
  if (codes.join() !== catalogue.join()) {
    throw new Error('the Error schema of the OpenAPI document and src/lib/error-catalogue.ts list different codes');
  }

  const types = new PythonTypes(api.components.schemas);
  for (const name of Object.keys(api.components.schemas)) types.component(name);
  const ops = renderOperations(api, types);
  const events = renderEvents(api, types);
  const money = [...types.numberFields].sort();
  const ambiguous = money.filter((f) => types.integerFields.has(f));
  if (ambiguous.length > 0) {
    // Money is recognised by field name in responses; a name that is money in one object and a
    // count in another would be parsed wrongly somewhere.
    throw new Error(`fields typed number in one place and integer in another: ${ambiguous.join(', ')}`);
  }

  const operationRows = ops.rows.map((r) => {
    const args = [pyString(r.method), pyString(r.path), pyTuple(r.pathParams), r.idempotencyKey ? 'True' : 'False']
      .concat([r.body ? 'True' : 'False', pyString(r.response)])
      .join(', ');
    const line = `    ${pyString(r.id)}: Operation(${args}),`;
    return line.length <= WIDTH ? line : `    ${pyString(r.id)}: Operation(\n        ${args}\n    ),`;
  });
  const statuses = Object.entries(ERROR_CATALOGUE).map(([code, e]) => `${pyString(code)}: ${e.status},`);
  const minorUnits = allCurrencyCodes().map((c) => `${pyString(c)}: ${minorUnitDigits(c)},`);
  const constants = ['API_VERSION', 'OPENAPI_SHA256', 'WebhookEvent', 'Operation', 'OPERATIONS', 'ErrorCode', 'ERROR_STATUS'];
  const exported = [...types.names, ...constants, 'EVENT_TYPES', 'DECIMAL_FIELDS', 'MINOR_UNITS'];

  return `# GENERATED by scripts/gen-sdk-python.ts from the OpenAPI document the app serves
# (GET /openapi.json), src/lib/error-catalogue.ts and src/lib/currencies.ts. Do not edit; run
# \`node --import tsx scripts/gen-sdk-python.ts\` (\`--check\` fails on drift).
"""Types and tables of the Tributary API, generated from its OpenAPI document."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Final, Literal, NamedTuple, NoReturn, NotRequired, TypedDict

__all__ = [
${packed(
  exported.map((n) => `${pyString(n)},`),
  '    ',
)}
]

#: The API version this SDK was generated against (\`info.version\` of the OpenAPI document).
API_VERSION: Final = ${pyString(api.info.version)}
#: SHA-256 of the OpenAPI document these types were generated from.
OPENAPI_SHA256: Final = ${pyString(openApiSha256(openApiText))}

# ---- Objects (components.schemas), request bodies, queries and webhook events ----

${types.definitions.join('\n\n')}

${ops.aliases.join('\n')}

#: Every verified webhook delivery, told apart by \`type\`.
WebhookEvent = (
${events.names.map((n, i) => `    ${i === 0 ? '' : '| '}${n}`).join('\n')}
)

# ---- Operations (paths), by operationId ----


class Operation(NamedTuple):
    """How one operation is called: the client builds every request from this table."""

    method: str
    path: str
    path_params: tuple[str, ...]
    #: Whether it takes an Idempotency-Key (the SDK then sends one on every call).
    idempotency_key: bool
    body: bool
    response: Literal["json", "text"]


OPERATIONS: Final[dict[str, Operation]] = {
${operationRows.join('\n')}
}

# ---- Errors (src/lib/error-catalogue.ts) ----

#: Every \`code\` an error body can carry (docs/errors.md).
ErrorCode = ${literal(catalogue, '')}

#: The HTTP status of each error code.
ERROR_STATUS: Final[dict[str, int]] = {
${packed(statuses, '    ')}
}

# ---- Webhook event types (webhooks) ----

#: Every event type the API sends today; new ones may appear (ignore types you do not know).
EVENT_TYPES: Final = ${pyTuple(events.eventTypes).replace(/, /g, ',\n    ').replace(/^\(/, '(\n    ').replace(/\)$/, ',\n)')}

# ---- Money ----

#: Fields that hold an amount in major units (every \`type: number\` of the document): parsed into and
#: sent from \`decimal.Decimal\`, never a binary float.
DECIMAL_FIELDS: Final = frozenset(
    {
${packed(
  money.map((f) => `${pyString(f)},`),
  '        ',
)}
    }
)

#: ISO 4217 minor-unit digits of every currency the API knows (src/lib/currencies.ts).
MINOR_UNITS: Final[dict[str, int]] = {
${packed(minorUnits, '    ')}
}
`.replace(/\n{4,}/g, '\n\n\n');
}

export async function renderPythonTypes(): Promise<string> {
  return renderPythonTypesFrom(await loadOpenApiText());
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rendered = await renderPythonTypes();
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(PYTHON_TYPES_PATH, 'utf8');
    } catch {
      // a missing file is drift too
    }
    if (current !== rendered) {
      console.error(`${PYTHON_TYPES_PATH} is out of date: run node --import tsx scripts/gen-sdk-python.ts`);
      process.exit(1);
    }
  } else {
    writeFileSync(PYTHON_TYPES_PATH, rendered);
  }
}
