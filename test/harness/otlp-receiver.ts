import http from 'node:http';
import { gunzipSync } from 'node:zlib';

/**
 * An OTLP/HTTP trace receiver on loopback, for tests: it accepts `POST /v1/traces` with a JSON body
 * (what @opentelemetry/exporter-trace-otlp-http sends) and keeps every span, flattened.
 */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's numbering: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** OTLP's numbering: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  links: { traceId: string; spanId: string }[];
  resource: Record<string, string | number | boolean>;
  startNs: bigint;
  endNs: bigint;
}

export interface OtlpReceiver {
  /** The base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it. */
  url: string;
  /** Every export request received (path, content type). */
  readonly requests: { path: string; contentType: string | undefined }[];
  readonly spans: ReceivedSpan[];
  /** Every export body as received (decoded), to search for what must never be exported. */
  readonly bodies: string[];
  close(): Promise<void>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: OtlpAttribute[];
  status?: { code?: number };
  links?: { traceId: string; spanId: string }[];
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
}
interface OtlpExport {
  resourceSpans?: { resource?: { attributes?: OtlpAttribute[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}

function attributesOf(list: OtlpAttribute[] | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const a of list ?? []) {
    const v = a.value;
    if (v.stringValue !== undefined) out[a.key] = v.stringValue;
    else if (v.intValue !== undefined) out[a.key] = Number(v.intValue);
    else if (v.doubleValue !== undefined) out[a.key] = v.doubleValue;
    else if (v.boolValue !== undefined) out[a.key] = v.boolValue;
  }
  return out;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const requests: OtlpReceiver['requests'][number][] = [];
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ path: req.url ?? '', contentType: req.headers['content-type'] });
      let raw = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') raw = gunzipSync(raw);
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !/^application\/json/.test(req.headers['content-type'] ?? '')) {
        res.writeHead(415).end();
        return;
      }
      bodies.push(raw.toString('utf8'));
      const body = JSON.parse(raw.toString('utf8')) as OtlpExport;
      for (const rs of body.resourceSpans ?? []) {
        const resource = attributesOf(rs.resource?.attributes);
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId ?? '',
              name: s.name,
              kind: s.kind,
              attributes: attributesOf(s.attributes),
              statusCode: s.status?.code ?? 0,
              links: (s.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
              resource,
              startNs: BigInt(s.startTimeUnixNano),
              endNs: BigInt(s.endTimeUnixNano),
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('OTLP receiver is not on TCP');
  return {
    url: `http://127.0.0.1:${address.port}`,
    requests,
    spans,
    bodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
