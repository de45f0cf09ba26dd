import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  ATTR,
  bindToContext,
  runInContext,
  type Span,
  SpanStatusCode,
  startServerSpan,
  traceResponseHeader,
  tracingEnabled,
} from '../../lib/tracing.ts';

/**
 * One server span per request (docs/tracing.md), installed only when tracing is on: the first
 * `onRequest` hook starts it — continuing the caller's `traceparent` — and runs the rest of the
 * request inside it; it ends when the response is finished (or the client gave up).
 *
 * The span is named by method and route template (`POST /payment/create`, `GET /payment/:id`),
 * never by the raw URL: ids would make every request's name unique. Its `tributary.request_id` is
 * the `request_id` of error bodies and log lines, so an error a merchant reports finds its trace.
 *
 * How the context reaches the handler: the hook calls `done` inside `context.with`, so the hooks
 * that follow run in it; the body is read by stream listeners that Fastify adds later, which run
 * in whatever context the stream was made in, so the request and response streams are bound to
 * the span's context too (later listeners, including the body parser's and the one that runs
 * `onResponse`, run in it).
 */
export function registerTracing(app: FastifyInstance): void {
  if (!tracingEnabled()) return;
  const spans = new WeakMap<FastifyRequest, Span>();

  app.addHook('onRequest', (request, reply, done) => {
    const route = request.routeOptions.url;
    const { span, context } = startServerSpan(
      route === undefined ? request.method : `${request.method} ${route}`,
      request.headers,
      {
        'http.request.method': request.method,
        ...(route === undefined ? {} : { 'http.route': route }),
        [ATTR.requestId]: request.id,
      },
    );
    spans.set(request, span);
    reply.header('traceresponse', traceResponseHeader(span));
    bindToContext(context, request.raw);
    bindToContext(context, reply.raw);
    runInContext(context, done);
  });

  const end = (request: FastifyRequest, status: number | undefined) => {
    const span = spans.get(request);
    if (span === undefined) return;
    spans.delete(request);
    if (status !== undefined) {
      span.setAttribute('http.response.status_code', status);
      // A server span is in error for 5xx only: a 4xx is the client's mistake, answered correctly.
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    } else {
      span.setAttribute('error.type', 'request_aborted');
    }
    const principal = (request as { principal?: { merchantId: string; environment: string } | null }).principal;
    if (principal != null) {
      span.setAttribute('tributary.merchant_id', principal.merchantId);
      span.setAttribute('tributary.environment', principal.environment);
    }
    span.end();
  };
  app.addHook('onResponse', (request, reply, done) => {
    end(request, reply.statusCode);
    done();
  });
  app.addHook('onRequestAbort', (request, done) => {
    end(request, undefined);
    done();
  });
}
