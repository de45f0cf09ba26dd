import fc from 'fast-check';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { arbitraryOf, resolve, type Schema } from './schema-arbitrary.ts';

/**
 * Requests built from /openapi.json for the generated suites (generated-requests.test.ts and
 * stateful-sequence.test.ts): operations, request generators, and the rule that a valid request is
 * refused only for a reason the operation's own text states.
 */
export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  description?: string;
  schema: Schema;
}
export interface Operation {
  operationId?: string;
  description?: string;
  security?: unknown[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
}
export interface Doc {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}
export interface Op {
  name: string;
  method: string;
  path: string;
  operation: Operation;
}
export interface GeneratedRequest {
  params: Record<string, string>;
  query: Record<string, string>;
  headers: Record<string, string>;
  /** undefined: no body. */
  body?: unknown;
}
export interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
}

export const METHODS = ['get', 'post', 'delete', 'put', 'patch'];

/** Ids of existing objects by prefix (`pay`, `ref`, …), so generated requests also reach real objects. */
export type Pool = Map<string, string[]>;

function idPrefixOf(parameter: Parameter): string | undefined {
  return /`([a-z]+)_…`/.exec(parameter.description ?? '')?.[1];
}

export function requestArbitrary(op: Op, doc: Doc, pool: Pool): fc.Arbitrary<GeneratedRequest> {
  const components = doc.components.schemas;
  const parts: Record<string, fc.Arbitrary<unknown>> = {};
  for (const p of op.operation.parameters ?? []) {
    const generated = arbitraryOf(p.schema, components).map((v) => String(v));
    let value: fc.Arbitrary<string> = generated;
    const prefix = p.in === 'path' ? (idPrefixOf(p) ?? (p.name === 'connector' ? 'connector' : undefined)) : undefined;
    const known = prefix === undefined ? [] : (pool.get(prefix) ?? []);
    // A path segment is never empty (an empty one is another path), nor `.` or `..`: every client
    // removes those dot-segments (RFC 3986 §5.2.4), so no request can carry them as a value.
    if (p.in === 'path') value = generated.filter((v) => v.length > 0 && v !== '.' && v !== '..');
    if (known.length > 0) value = fc.oneof({ arbitrary: fc.constantFrom(...known), weight: 3 }, { arbitrary: value, weight: 1 });
    parts[`${p.in}:${p.name}`] = p.required === true ? value : fc.option(value, { nil: undefined });
  }
  const content = op.operation.requestBody?.content['application/json'];
  if (content !== undefined) {
    const body = arbitraryOf(content.schema, components);
    parts['body'] = op.operation.requestBody?.required === true ? body : fc.option(body, { nil: undefined });
  }
  return fc.record(parts).map((values) => {
    const request: GeneratedRequest = { params: {}, query: {}, headers: {} };
    for (const [key, value] of Object.entries(values)) {
      if (value === undefined) continue;
      if (key === 'body') request.body = value;
      else {
        const [where, name] = key.split(':') as [string, string];
        const target = where === 'path' ? request.params : where === 'query' ? request.query : request.headers;
        target[name] = value as string;
      }
    }
    return request;
  });
}

export function toSent(op: Op, request: GeneratedRequest, key: string): Sent {
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(request.params[name] ?? ''));
  const query = new URLSearchParams(request.query).toString();
  const headers: Record<string, string> = { ...request.headers };
  if (op.operation.security === undefined) headers['authorization'] = `Bearer ${key}`;
  const sent: Sent = { method: op.method.toUpperCase(), url: query === '' ? path : `${path}?${query}`, headers };
  if (request.body !== undefined) {
    headers['content-type'] = 'application/json';
    sent.payload = JSON.stringify(request.body);
  }
  return sent;
}

/** The operation's own words in the document: its description and every description inside it. */
export function statedText(op: Op, doc: Doc): string {
  const seen = new Set<string>();
  const texts: string[] = [];
  const walk = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node !== null && typeof node === 'object') {
      for (const [k, v] of Object.entries(node)) {
        if (k === 'description' && typeof v === 'string') texts.push(v);
        else if (k === '$ref' && typeof v === 'string' && !seen.has(v)) {
          seen.add(v);
          walk(resolve({ $ref: v }, doc.components.schemas));
        } else walk(v);
      }
    }
  };
  walk({ description: op.operation.description, parameters: op.operation.parameters, requestBody: op.operation.requestBody });
  return texts.join('\n');
}

/** Why a valid request's answer is not one the document states (empty: it is). */
export function unstated(op: Op, text: string, res: LightMyRequestResponse): string[] {
  if (res.statusCode < 400) return [];
  if (res.statusCode >= 500) return [`a ${res.statusCode} to a valid request`];
  // A required body the generator cannot write (a payer page's form, not JSON) was not sent: the
  // request was not valid, and its refusal is the mutated suite's business.
  const requestBody = op.operation.requestBody;
  if (requestBody?.required === true && requestBody.content['application/json'] === undefined) return [];
  // A non-JSON refusal is the page's own (the payer page's HTML 404), checked by the harness.
  if (!String(res.headers['content-type']).startsWith('application/json')) return [];
  const error = JSON.parse(res.body) as { code: string; details: { field?: string; issue?: string }[] };
  const named = (code: string) => text.includes(`\`${code}\``);
  if (error.code === 'invalid_request') {
    return error.details
      .filter((d) => d.issue === undefined || !named(d.issue))
      .map(
        (d) => `invalid_request ${d.field ?? ''}/${d.issue ?? ''}: the document says the request is valid and names no such rule`,
      );
  }
  const hasId = (op.operation.parameters ?? []).some((p) => p.in === 'path');
  if (error.code === 'resource_not_found' && hasId) return [];
  return named(error.code) ? [] : [`${res.statusCode} ${error.code}: not named by ${op.name}`];
}

export function operationsOf(doc: Doc): Op[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => ({ name: operation.operationId ?? `${method} ${path}`, method, path, operation })),
  );
}

export function injectOptions(sent: Sent): InjectOptions {
  return {
    method: sent.method as NonNullable<InjectOptions['method']>,
    url: sent.url,
    headers: sent.headers,
    ...(sent.payload === undefined ? {} : { payload: sent.payload }),
  };
}

export type { LightMyRequestResponse };
