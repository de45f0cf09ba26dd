import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020Module from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

/**
 * The published contract, checked on every answer a test receives: the answer's status must be
 * one the operation documents in /openapi.json (exactly, or by its `4XX`/`5XX` range), its
 * content type one that status documents, its body valid against that content's schema (JSON
 * Schema 2020-12, the dialect of OpenAPI 3.1, validated by ajv's 2020 build with ajv-formats),
 * and it must carry a `Request-Id` header (the `request_id` of an error body, too).
 *
 * Nothing here names a route: the operations come from the document, so a route added with a
 * proper schema is checked without touching this file, and an answer of a path the document does
 * not know must be an error in the error structure (404 `route_not_found`, or 405 with `Allow`
 * when the path exists with other methods). Non-JSON answers (text/html pages, text/csv exports)
 * are checked for status, content type and Request-Id.
 */

const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;

/**
 * Served but deliberately not part of the document: the document itself, its reference UI, the
 * Prometheus scrape, the merchant dashboard (HTML forms behind a session, docs/dashboard.md) and
 * the co-hosted sandbox providers (they play the payment providers, not our API).
 */
const UNDOCUMENTED_BY_DESIGN = [
  /^\/openapi\.json$/,
  /^\/docs(\/|$)/,
  /^\/metrics$/,
  /^\/dashboard(\/|$)/,
  /^\/_sandbox\/providers\//,
];

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

interface MediaType {
  schema?: unknown;
}
interface HeaderObject {
  required?: boolean;
  schema?: unknown;
}
interface ResponseObject {
  content?: Record<string, MediaType>;
  headers?: Record<string, HeaderObject>;
}
interface OperationObject {
  operationId?: string;
  responses: Record<string, ResponseObject>;
}
export interface ContractDocument {
  paths: Record<string, Record<string, OperationObject>>;
}

/** One answer as the test received it. */
export interface Exchange {
  method: string;
  /** Path and query, as sent. */
  url: string;
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

interface PathTemplate {
  template: string;
  regex: RegExp;
  /** Literal segments first: /payment/create is preferred over /payment/{id}, as the router does. */
  params: number;
}

export interface ContractCounts {
  validated: number;
  undocumented: number;
  byOperation: Record<string, number>;
}

const pointerSegment = (s: string) => encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'));

function header(headers: Exchange['headers'], name: string): string | undefined {
  const value = headers[name] ?? headers[name.toLowerCase()];
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value.join(', ') : String(value);
}

export class ResponseContract {
  readonly counts: ContractCounts = { validated: 0, undocumented: 0, byOperation: {} };
  private readonly ajv;
  private readonly templates: PathTemplate[];
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly doc: ContractDocument) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addSchema(doc as object, 'openapi.json');
    this.templates = Object.keys(doc.paths)
      .map((template) => {
        const parts = template.split(/\{[^}]+\}/).map((p) => p.replace(/[.*+?^$()|[\]\\]/g, '\\$&'));
        return { template, regex: new RegExp(`^${parts.join('[^/]+')}$`), params: parts.length - 1 };
      })
      .sort((x, y) => x.params - y.params);
  }

  /** The problems of one answer (empty: it is what the document says). Counts it. */
  check(exchange: Exchange): string[] {
    const path = (exchange.url.split('?')[0] ?? '').split('#')[0] ?? '';
    if (UNDOCUMENTED_BY_DESIGN.some((r) => r.test(path))) return [];
    const problems = this.problemsOf(exchange, path);
    this.counts.validated += 1;
    if (problems.length > 0) this.counts.undocumented += 1;
    return problems.map((p) => `${exchange.method} ${exchange.url.slice(0, 200)} → ${exchange.status}: ${p}`);
  }

  private problemsOf(exchange: Exchange, path: string): string[] {
    const problems: string[] = [];
    const requestId = header(exchange.headers, 'request-id');
    if (requestId === undefined || !/^req_[0-9A-Za-z]+$/.test(requestId))
      problems.push(`Request-Id header missing or malformed (${String(requestId)})`);

    let pathItem: Record<string, OperationObject> | undefined;
    let template: string | undefined;
    let decodedPath = path;
    try {
      decodedPath = decodeURI(path);
    } catch {
      // A malformed escape matches no operation: it must be a refusal in the error structure.
    }
    const method = exchange.method.toLowerCase();
    const lookup = method === 'head' ? 'get' : method;
    // The first matching path that has this method (GET /payment/create is getPayment with id
    // "create"), else the first matching path (its other methods make the answer a 405).
    const matching = this.templates.filter((t) => t.regex.test(path) || t.regex.test(decodedPath));
    const chosen = matching.find((t) => this.doc.paths[t.template]?.[lookup] !== undefined) ?? matching[0];
    if (chosen !== undefined) {
      pathItem = this.doc.paths[chosen.template];
      template = chosen.template;
    }
    const operation = pathItem?.[lookup];
    const key = `${lookup} ${template ?? '(no path)'}`;
    // Documented operations by operationId (else method and path); answers to no operation apart.
    const counted = operation === undefined ? `(no operation) ${key}` : (operation.operationId ?? key);
    this.counts.byOperation[counted] = (this.counts.byOperation[counted] ?? 0) + 1;

    if (operation === undefined || pathItem === undefined || template === undefined) {
      // No such operation: only a refusal in the error structure is documented (docs/errors.md).
      if (exchange.status < 400 || exchange.status >= 500) problems.push('an answer to no documented operation must be a 4xx');
      if (pathItem !== undefined && exchange.status === 405) {
        const documented = METHODS.filter((m) => matching.some((t) => this.doc.paths[t.template]?.[m] !== undefined)).map((m) =>
          m.toUpperCase(),
        );
        if (documented.includes('GET')) documented.push('HEAD');
        const allow = (header(exchange.headers, 'allow') ?? '').split(',').map((m) => m.trim());
        for (const m of documented) if (!allow.includes(m)) problems.push(`405 without ${m} in Allow (${allow.join(', ')})`);
      } else if (pathItem !== undefined && exchange.status === 404) {
        problems.push(`${exchange.method} on ${template} (which exists with other methods) must be 405 with Allow`);
      }
      problems.push(...this.errorBodyProblems(exchange, requestId, 'openapi.json#/components/schemas/Error'));
      return problems;
    }

    const statusKey = this.statusKey(operation, exchange.status);
    if (statusKey === undefined) {
      problems.push(`status ${exchange.status} is not documented for ${operation.operationId ?? key}`);
      return problems;
    }
    const response = operation.responses[statusKey] ?? {};
    // The headers the document declares for this answer: required ones present, each valid.
    for (const [name, declared] of Object.entries(response.headers ?? {})) {
      const value = header(exchange.headers, name.toLowerCase());
      if (value === undefined) {
        if (declared.required === true) problems.push(`the declared header ${name} is missing`);
        continue;
      }
      const pointer = ['paths', template, lookup, 'responses', statusKey, 'headers', name, 'schema'];
      const validate = this.validator(`openapi.json#/${pointer.map(pointerSegment).join('/')}`);
      if (validate(value) !== true) problems.push(`the header ${name}: ${value} does not match the document`);
    }
    const content = response.content ?? {};
    const mediaTypes = Object.keys(content);
    const contentType = (header(exchange.headers, 'content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (mediaTypes.length === 0) {
      if (exchange.body !== '' && method !== 'head') problems.push('a body where the document declares none');
      return problems;
    }
    if (!mediaTypes.includes(contentType)) {
      problems.push(`content type ${contentType || '(none)'} is not one of ${mediaTypes.join(', ')}`);
      return problems;
    }
    if (method === 'head' || !contentType.endsWith('json')) return problems;
    const pointer = ['paths', template, lookup, 'responses', statusKey, 'content', contentType, 'schema'];
    const ref = `openapi.json#/${pointer.map(pointerSegment).join('/')}`;
    // The error rules (request_id, Retry-After, …) hold for the error body, not for every 4xx/5xx
    // (GET /readyz answers 503 with its checks).
    const schema = content[contentType]?.schema as { $ref?: string } | undefined;
    const isErrorBody = schema?.$ref === '#/components/schemas/Error';
    problems.push(...this.errorBodyProblems(exchange, requestId, ref, isErrorBody));
    return problems;
  }

  private statusKey(operation: OperationObject, status: number): string | undefined {
    const keys = Object.keys(operation.responses);
    const range = `${String(status)[0]}XX`;
    return (
      keys.find((k) => k === String(status)) ?? keys.find((k) => k.toUpperCase() === range) ?? keys.find((k) => k === 'default')
    );
  }

  /** The body against a schema; an error body also against the error rules of docs/errors.md. */
  private errorBodyProblems(exchange: Exchange, requestId: string | undefined, ref: string, isError = true): string[] {
    const problems: string[] = [];
    let body: unknown;
    try {
      body = JSON.parse(exchange.body);
    } catch {
      return [`body is not JSON: ${exchange.body.slice(0, 120)}`];
    }
    const contentType = header(exchange.headers, 'content-type') ?? '';
    if (!contentType.startsWith('application/json')) problems.push(`content type ${contentType} for a JSON body`);
    const validate = this.validator(ref);
    if (validate(body) !== true) {
      const errors = (validate.errors ?? [])
        .slice(0, 5)
        .map((e) => `${e.instancePath || '/'} ${e.message ?? ''} (${e.schemaPath})`);
      problems.push(`body does not match the document: ${errors.join('; ')} — body ${exchange.body.slice(0, 300)}`);
    }
    if (isError && typeof body === 'object' && body !== null) {
      const error = body as { code?: unknown; request_id?: unknown };
      if (error.request_id !== requestId) problems.push(`request_id ${String(error.request_id)} is not the Request-Id header`);
      if ((exchange.status === 429 || exchange.status === 503) && header(exchange.headers, 'retry-after') === undefined)
        problems.push('a 429/503 error without Retry-After');
      if (error.code === 'unauthorized' && !(header(exchange.headers, 'www-authenticate') ?? '').startsWith('Bearer'))
        problems.push('an unauthorized error without WWW-Authenticate: Bearer');
      if (error.code === 'method_not_allowed' && header(exchange.headers, 'allow') === undefined)
        problems.push('a 405 without Allow');
    }
    return problems;
  }

  private validator(ref: string): ValidateFunction {
    let validate = this.compiled.get(ref);
    if (validate === undefined) {
      validate = this.ajv.compile({ $ref: ref });
      this.compiled.set(ref, validate);
    }
    return validate;
  }
}

/**
 * One contract per test process (the document does not depend on data or options), and its counts
 * written to test-output/contract/<pid>.json when the process ends: scripts/run-tests.ts sums them.
 */
let shared: ResponseContract | undefined;

export function contractFor(doc: () => ContractDocument): ResponseContract {
  if (shared === undefined) {
    shared = new ResponseContract(JSON.parse(JSON.stringify(doc())) as ContractDocument);
    const contract = shared;
    process.on('exit', () => {
      // scripts/run-tests.ts names one directory per run; a test file run alone writes to `adhoc`.
      const dir = process.env['CONTRACT_COUNTS_DIR'] ?? join(process.cwd(), 'test-output', 'contract', 'adhoc');
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        join(dir, `${process.pid}.json`),
        JSON.stringify({ file: process.argv[1], store: process.env['TEST_STORE'] ?? 'embedded', ...contract.counts }),
      );
    });
  }
  return shared;
}
