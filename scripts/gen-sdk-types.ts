import { createHash } from 'node:crypto';
import prettier from 'prettier';
import { buildApp } from '../src/app.ts';
import { ConnectorRegistry } from '../src/connectors/core/registry.ts';
import { openEmbeddedStore } from '../src/db/pglite-store.ts';
import { systemClock } from '../src/lib/clock.ts';
import { ERROR_CATALOGUE } from '../src/lib/error-catalogue.ts';
import { noFailpoints } from '../src/lib/failpoints.ts';
import { createLogger } from '../src/lib/logger.ts';
import { createAuthenticator } from '../src/modules/merchants/authenticator.ts';
import { builtInConnectors } from '../src/runtime.ts';

/**
 * Generates sdk/src/generated/api.ts — every type of the SDK `@tributary/node` that the API
 * already describes — from the OpenAPI document the app itself serves (`GET /openapi.json`) and
 * from the error catalogue. Nothing of it is written by hand, so the SDK cannot drift from the
 * server: `npm run gen:check` (scripts/gen-docs.ts --check) fails when the committed file differs.
 *
 * It writes, per component schema, a type; per operation (operationId), its path parameters,
 * query, body and response types and one row of the OPERATIONS table (method, path, whether it
 * takes an Idempotency-Key, whether the answer is JSON); the error-code union with each code's
 * status; and one type per webhook event (the OpenAPI 3.1 `webhooks` section).
 */

export const SDK_TYPES_PATH = 'sdk/src/generated/api.ts';

/** The parts of the OpenAPI document the three SDK generators read (gen-sdk-php.ts, gen-sdk-python.ts too). */
export type Schema = Record<string, unknown>;
export interface OpenApiDocument {
  info: { version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
  webhooks?: Record<string, { post?: Operation }>;
}
export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  description?: string;
  schema: Schema;
}
export interface Operation {
  operationId?: string;
  tags?: string[];
  summary?: string;
  description?: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
  responses: Record<string, { description?: string; content?: Record<string, { schema: Schema }> }>;
}

/** Any fixed value works: the document does not depend on secrets or on data. */
const SPEC_SECRET = 'gen-sdk-types-gen-sdk-types-gen-sdk-types';

/** Builds the real app (in-memory store, no listening) and asks it for its OpenAPI document. */
export async function loadOpenApiText(): Promise<string> {
  const store = await openEmbeddedStore({ owner: 'gen-sdk-types' });
  const log = createLogger('silent');
  try {
    const connectors = builtInConnectors({ sandboxBaseUrl: () => 'http://127.0.0.1:9', sandboxSecret: SPEC_SECRET, log });
    const app = await buildApp({
      store,
      clock: systemClock,
      connectors: new ConnectorRegistry(connectors, []),
      authenticator: createAuthenticator({ store, clock: systemClock, secret: SPEC_SECRET, cacheTtlMs: 0 }),
      failpoints: noFailpoints,
      log,
      readiness: { shuttingDown: false },
      publicBaseUrl: 'http://127.0.0.1:8080',
      secret: SPEC_SECRET,
      webhookAllowlist: [],
      bodyLimitBytes: 65_536,
      idempotencyLeaseMs: 60_000,
      idempotencyTtlHours: 24,
      connectorTimeoutMs: 10_000,
    });
    try {
      const res = await app.inject({ method: 'GET', url: '/openapi.json' });
      if (res.statusCode !== 200) throw new Error(`GET /openapi.json answered ${res.statusCode}`);
      return res.body;
    } finally {
      await app.close();
    }
  } finally {
    await store.close();
  }
}

/** The fingerprint the generated file carries; a test compares it with what a running server serves. */
export function openApiSha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

const pascal = (s: string) =>
  s
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w.length > 0)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');

const propertyKey = (k: string) => (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(k) ? k : JSON.stringify(k));

function doc(description: unknown, indent: string): string {
  if (typeof description !== 'string' || description.trim() === '') return '';
  const lines = description.replace(/\*\//g, '*\\/').split('\n');
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((l) => `${indent} * ${l}`.trimEnd()).join('\n')}\n${indent} */\n`;
}

const REF_PREFIX = '#/components/schemas/';

/** Component names that would shadow a JavaScript global inside the SDK get another name. */
const RENAMED: Record<string, string> = { Error: 'ErrorBody' };
const typeName = (component: string) => RENAMED[component] ?? component;

/**
 * Operations that are not the merchant's API: the payer's hosted page (public, for browsers) and
 * the providers' inbound notifications. The SDK gets no types for them.
 */
const EXCLUDED_TAGS = new Set(['payer page', 'providers']);

/** JSON Schema (the subset TypeBox emits) → a TypeScript type expression. */
function tsType(schema: Schema | boolean | undefined, indent = ''): string {
  if (schema === undefined || schema === true) return 'unknown';
  if (schema === false) return 'never';
  const ref = schema['$ref'];
  if (typeof ref === 'string') {
    if (!ref.startsWith(REF_PREFIX)) throw new Error(`unsupported $ref ${ref}`);
    return typeName(ref.slice(REF_PREFIX.length));
  }
  if ('const' in schema) return JSON.stringify(schema['const']);
  if (Array.isArray(schema['enum'])) return schema['enum'].map((v) => JSON.stringify(v)).join(' | ');
  const alternatives = (schema['anyOf'] ?? schema['oneOf']) as Schema[] | undefined;
  if (alternatives !== undefined) return alternatives.map((s) => wrap(tsType(s, indent))).join(' | ');
  const type = schema['type'];
  if (Array.isArray(type)) return type.map((t) => wrap(tsType({ ...schema, type: t }, indent))).join(' | ');
  switch (type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return `${wrap(tsType(schema['items'] as Schema | undefined, indent))}[]`;
    case 'object':
      return objectType(schema, indent);
    case undefined:
      if (schema['properties'] !== undefined) return objectType(schema, indent);
      return 'unknown';
    default:
      throw new Error(`unsupported schema type ${String(type)}`);
  }
}

const wrap = (t: string) => (t.includes(' | ') || t.includes(' & ') ? `(${t})` : t);

function objectType(schema: Schema, indent: string): string {
  const properties = (schema['properties'] ?? {}) as Record<string, Schema>;
  const required = new Set((schema['required'] ?? []) as string[]);
  const additional = schema['additionalProperties'] as Schema | boolean | undefined;
  const names = Object.keys(properties);
  if (names.length === 0) {
    if (additional === false) return 'Record<string, never>';
    return `Record<string, ${tsType(additional === undefined ? true : additional, indent)}>`;
  }
  const inner = `${indent}  `;
  const members = names.map((name) => {
    const p = properties[name]!;
    return `${doc(p['description'], inner)}${inner}${propertyKey(name)}${required.has(name) ? '' : '?'}: ${tsType(p, inner)};`;
  });
  if (additional !== undefined && additional !== false) {
    members.push(`${inner}[key: string]: ${additional === true ? 'unknown' : tsType(additional, inner)};`);
  }
  return `{\n${members.join('\n')}\n${indent}}`;
}

function paramsType(params: Parameter[]): string {
  if (params.length === 0) return 'Record<string, never>';
  return objectType(
    {
      type: 'object',
      additionalProperties: false,
      required: params.filter((p) => p.required === true).map((p) => p.name),
      properties: Object.fromEntries(
        params.map((p) => [p.name, { ...p.schema, ...(p.description === undefined ? {} : { description: p.description }) }]),
      ),
    },
    '',
  );
}

function renderOperations(api: OpenApiDocument): { types: string[]; table: string[]; map: string[] } {
  const types: string[] = [];
  const table: string[] = [];
  const map: string[] = [];
  for (const [path, methods] of Object.entries(api.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const id = op.operationId;
      if (id === undefined) continue; // operators' probes (/healthz, /readyz) are not API operations
      if ((op.tags ?? []).some((t) => EXCLUDED_TAGS.has(t))) continue;
      const name = pascal(id);
      const params = op.parameters ?? [];
      const pathParams = params.filter((p) => p.in === 'path');
      const query = params.filter((p) => p.in === 'query');
      const idempotencyKey = params.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
      const bodySchema = op.requestBody?.content['application/json']?.schema;
      const successes = Object.entries(op.responses).filter(([status]) => /^2\d\d$/.test(status));
      if (successes.length === 0) throw new Error(`${id}: no 2xx response`);
      const json = successes.every(([, r]) => r.content?.['application/json'] !== undefined);
      const responseTypes = [
        ...new Set(
          successes.map(([, r]) => {
            const content = r.content ?? {};
            const jsonSchema = content['application/json']?.schema;
            return jsonSchema === undefined ? 'string' : tsType(jsonSchema);
          }),
        ),
      ];
      const comment = doc([op.summary, op.description].filter((s) => s !== undefined).join('\n\n'), '');
      types.push(`${comment}export type ${name}Params = ${paramsType(pathParams)};`);
      types.push(`export type ${name}Query = ${paramsType(query)};`);
      types.push(`export type ${name}Body = ${bodySchema === undefined ? 'undefined' : tsType(bodySchema)};`);
      types.push(`export type ${name}Response = ${responseTypes.join(' | ')};`);
      table.push(
        `  ${id}: { method: '${method.toUpperCase()}', path: '${path}', pathParams: [${pathParams
          .map((p) => `'${p.name}'`)
          .join(
            ', ',
          )}], idempotencyKey: ${idempotencyKey}, body: ${bodySchema !== undefined}, response: '${json ? 'json' : 'text'}' },`,
      );
      map.push(`  ${id}: { params: ${name}Params; query: ${name}Query; body: ${name}Body; response: ${name}Response };`);
    }
  }
  return { types, table, map };
}

function renderEvents(api: OpenApiDocument): { types: string[]; names: string[]; eventTypes: string[] } {
  const types: string[] = [];
  const names: string[] = [];
  const eventTypes: string[] = [];
  for (const [type, item] of Object.entries(api.webhooks ?? {})) {
    const schema = item.post?.requestBody?.content['application/json']?.schema;
    if (schema === undefined) throw new Error(`webhook ${type}: no JSON body`);
    const name = `${pascal(type)}Event`;
    types.push(`${doc(item.post?.description, '')}export type ${name} = ${tsType(schema)};`);
    names.push(name);
    eventTypes.push(type);
  }
  return { types, names, eventTypes };
}

export function renderSdkTypesFrom(openApiText: string): string {
  const api = JSON.parse(openApiText) as OpenApiDocument;
  const errorSchema = api.components.schemas['Error'] as { properties: { code: { enum: string[] } } } | undefined;
  const codes = errorSchema?.properties.code.enum ?? [];
  const catalogue = Object.keys(ERROR_CATALOGUE);
  if (codes.join() !== catalogue.join()) {
    throw new Error('the Error schema of the OpenAPI document and src/lib/error-catalogue.ts list different codes');
  }
  const components = Object.entries(api.components.schemas).map(
    ([name, schema]) => `${doc(schema['description'], '')}export type ${typeName(name)} = ${tsType(schema)};`,
  );
  const ops = renderOperations(api);
  const events = renderEvents(api);
  const statuses = Object.entries(ERROR_CATALOGUE).map(([code, e]) => `  ${code}: ${e.status},`);
  return `// GENERATED by scripts/gen-sdk-types.ts from the OpenAPI document the app serves (GET /openapi.json)
// and from src/lib/error-catalogue.ts. Do not edit; run \`npm run gen:docs\` (\`npm run gen:check\` fails on drift).

/** The API version this SDK was generated against (\`info.version\` of the OpenAPI document). */
export const API_VERSION = ${JSON.stringify(api.info.version)};
/** SHA-256 of the OpenAPI document these types were generated from. */
export const OPENAPI_SHA256 = ${JSON.stringify(openApiSha256(openApiText))};

// ---- Objects (components.schemas) ----

${components.join('\n\n')}

// ---- Operations (paths), by operationId ----

${ops.types.join('\n')}

/** How each operation is called: the runtime builds every request from this table. */
export const OPERATIONS = {
${ops.table.join('\n')}
} as const;

export type OperationId = keyof typeof OPERATIONS;

/** The path parameters, query, body and response of each operation. */
export interface OperationTypes {
${ops.map.join('\n')}
}

// ---- Errors (src/lib/error-catalogue.ts) ----

/** Every \`code\` an error body can carry (docs/errors.md). */
export type ErrorCode = ${catalogue.map((c) => `'${c}'`).join(' | ')};

/** The HTTP status of each error code. */
export const ERROR_STATUS: { readonly [C in ErrorCode]: number } = {
${statuses.join('\n')}
};

// ---- Webhook events (webhooks) ----

${events.types.join('\n\n')}

/** Every event type the API sends today; new ones may appear (ignore types you do not know). */
export const EVENT_TYPES = [${events.eventTypes.map((t) => `'${t}'`).join(', ')}] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** A verified webhook delivery, narrowed by \`type\`. */
export type WebhookEvent = ${events.names.join(' | ')};
`;
}

/** The file as committed: generated, then formatted with the repository's Prettier settings. */
export async function renderSdkTypes(): Promise<string> {
  const text = renderSdkTypesFrom(await loadOpenApiText());
  const options = (await prettier.resolveConfig(SDK_TYPES_PATH)) ?? {};
  return prettier.format(text, { ...options, filepath: SDK_TYPES_PATH });
}
