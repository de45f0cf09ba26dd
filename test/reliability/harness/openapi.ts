import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { call, quickStartBody } from './api-client.ts';

/**
 * The service's own `/openapi.json` as the oracle: which routes exist (so the fuzz and isolation
 * scenarios cover routes as they land) and what every response must look like.
 */
export interface Operation {
  method: string;
  path: string;
  operationId: string | undefined;
  requestBodySchema: Record<string, unknown> | undefined;
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

export interface OpenApi {
  doc: Record<string, unknown>;
  operations: Operation[];
  /** undefined when the response matches what the document says for this status; else why not. */
  checkResponse(op: Operation, status: number, contentType: string | null, body: string): string | undefined;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
/** Reference and operations routes, not API resources. */
export const OPS_PATHS = /^\/(healthz|readyz|metrics|openapi\.json|docs)(\/|$)/;

export async function loadOpenApi(baseUrl: string): Promise<OpenApi> {
  const res = await call(baseUrl, 'GET', '/openapi.json');
  if (!res.ok || res.status !== 200) throw new Error(`GET /openapi.json failed: ${res.ok ? res.status : res.error}`);
  const doc = res.json<{ paths: Record<string, Record<string, Record<string, unknown>>>; components?: unknown }>();
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema({ $id: 'api', components: doc.components ?? {} });
  const compiled = new Map<unknown, ValidateFunction>();
  const validatorFor = (schema: unknown) => {
    let v = compiled.get(schema);
    if (v === undefined) {
      v = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"api#/components/')) as object);
      compiled.set(schema, v);
    }
    return v;
  };
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (op === undefined) continue;
      const body = op['requestBody'] as { content?: Record<string, { schema?: Record<string, unknown> }> } | undefined;
      operations.push({
        method: method.toUpperCase(),
        path,
        operationId: op['operationId'] as string | undefined,
        requestBodySchema: body?.content?.['application/json']?.schema,
        responses: (op['responses'] ?? {}) as Operation['responses'],
      });
    }
  }
  return {
    doc: doc as Record<string, unknown>,
    operations,
    checkResponse(op, status, contentType, body) {
      const declared =
        op.responses[String(status)] ??
        op.responses[`${String(status)[0]}XX`] ??
        op.responses[`${String(status)[0]}xx`] ??
        op.responses['default'];
      if (declared === undefined) return `status ${status} is not documented for ${op.method} ${op.path}`;
      const schema = declared.content?.['application/json']?.schema;
      if (schema === undefined) return undefined; // documented without a JSON body
      if (contentType === null || !contentType.startsWith('application/json')) return `content-type ${contentType} is not JSON`;
      let value: unknown;
      try {
        value = JSON.parse(body);
      } catch {
        return 'body is not JSON';
      }
      const validate = validatorFor(schema);
      if (validate(value)) return undefined;
      return `body does not match the ${status} schema: ${ajv.errorsText(validate.errors)}`;
    },
  };
}

/** A body the route accepts: the published quick-start shape for create; otherwise from the schema. */
export function validBody(op: Operation, unique: string): Record<string, unknown> {
  if (op.path === '/payment/create') return quickStartBody(unique);
  return sampleFromSchema(op.requestBodySchema ?? {}, unique) as Record<string, unknown>;
}

function sampleFromSchema(schema: Record<string, unknown>, unique: string): unknown {
  const examples = schema['examples'];
  if (Array.isArray(examples) && examples.length > 0) return examples[0];
  if (Array.isArray(schema['enum'])) return schema['enum'][0];
  const type = Array.isArray(schema['type']) ? schema['type'][0] : schema['type'];
  if (type === 'object') {
    const out: Record<string, unknown> = {};
    const props = (schema['properties'] ?? {}) as Record<string, Record<string, unknown>>;
    for (const name of (schema['required'] ?? []) as string[])
      out[name] = sampleFromSchema(props[name] ?? {}, `${unique}-${name}`);
    return out;
  }
  if (type === 'string') {
    if (schema['format'] === 'email') return 'payer@example.com';
    if (schema['format'] === 'uri' || schema['format'] === 'url') return 'https://example.com/hook';
    return unique;
  }
  if (type === 'number' || type === 'integer') return 1;
  if (type === 'boolean') return true;
  if (type === 'array') return [];
  return null;
}
