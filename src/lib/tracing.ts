import {
  type Attributes,
  type Context,
  context,
  diag,
  type DiagLogger,
  DiagLogLevel,
  isSpanContextValid,
  type Link,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from '@opentelemetry/api';
import type { ReadableSpan, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';

/**
 * Tracing (OpenTelemetry), docs/tracing.md. This file owns the setup and the few helpers the rest
 * of the code uses, so that nothing else needs to know how the SDK is wired.
 *
 * Off by default, and then free: without OTEL_EXPORTER_OTLP_ENDPOINT nothing is registered (the
 * API stays on its no-op tracer), `tracingEnabled()` is false, and every instrumented place checks
 * it first and takes its untraced path — no span objects, no context manager, no header
 * injection. The HTTP hooks and the store decorator are not even installed.
 *
 * On, one process-wide tracer provider exports over OTLP/HTTP with JSON bodies
 * (`{endpoint}/v1/traces`), batched; W3C `traceparent` is the propagation format. The SDK is
 * imported only then (it costs ~160 ms of start-up to load; the API alone is already loaded).
 */

export interface TracingOptions {
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the collector's base URL. Unset: tracing stays off. */
  endpoint: string | undefined;
  /** service.name unless OTEL_SERVICE_NAME / OTEL_RESOURCE_ATTRIBUTES say otherwise. */
  serviceName?: string;
  /** Where the SDK's own warnings go (an unreachable collector, a full export queue). */
  log?: { warn(obj: object, msg: string): void };
  /** Replaces the OTLP exporter (tests). */
  exporter?: SpanExporter;
}

export interface Tracing {
  /** Exports every ended span now. */
  forceFlush(): Promise<void>;
  /** Flushes, then unregisters everything: the process is back to the no-op API. */
  shutdown(): Promise<void>;
}

/** Span attributes of our own (OpenTelemetry's semantic conventions where one fits). */
export const ATTR = {
  jobName: 'tributary.job.name',
  jobHandled: 'tributary.job.handled',
  requestId: 'tributary.request_id',
} as const;

const TRACER_NAME = 'tributary';
/** How long shutdown waits for the last export. */
const SHUTDOWN_WAIT_MS = 5_000;
let enabled = false;
let tracer: Tracer = trace.getTracer(TRACER_NAME);

/** True once startTracing registered a provider (every instrumented place checks this first). */
export function tracingEnabled(): boolean {
  return enabled;
}

/**
 * Registers the tracer provider, the async-local-storage context manager and the W3C propagator,
 * when `options.endpoint` is set. Returns undefined (and registers nothing) when it is not.
 */
export async function startTracing(options: TracingOptions): Promise<Tracing | undefined> {
  if (options.endpoint === undefined && options.exporter === undefined) return undefined;
  if (enabled) throw new Error('tracing is already started in this process');
  const [{ AsyncLocalStorageContextManager }, { W3CTraceContextPropagator }, { OTLPTraceExporter }, resources, sdk] =
    await Promise.all([
      import('@opentelemetry/context-async-hooks'),
      import('@opentelemetry/core'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/sdk-trace-base'),
    ]);
  if (options.log !== undefined) diag.setLogger(diagToLog(options.log), DiagLogLevel.WARN);
  const exporter =
    options.exporter ??
    // The JSON flavour of OTLP/HTTP (this package's only body format; `-proto` is the protobuf one).
    new OTLPTraceExporter({ url: `${String(options.endpoint).replace(/\/+$/, '')}/v1/traces` });
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ 'service.name': options.serviceName ?? 'tributary' }))
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over our defaults, as everywhere else.
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const provider = new sdk.BasicTracerProvider({
    resource,
    spanProcessors: [new DropIdleJobTraces(new sdk.BatchSpanProcessor(exporter))],
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  tracer = trace.getTracer(TRACER_NAME);
  enabled = true;
  return {
    forceFlush: () => provider.forceFlush(),
    async shutdown() {
      if (!enabled) return;
      enabled = false;
      try {
        // Bounded: an unreachable collector must not hold up the process's exit.
        await Promise.race([provider.shutdown(), new Promise<void>((resolve) => setTimeout(resolve, SHUTDOWN_WAIT_MS).unref())]);
      } finally {
        trace.disable();
        propagation.disable();
        context.disable();
        diag.disable();
        tracer = trace.getTracer(TRACER_NAME);
      }
    },
  };
}

function diagToLog(log: NonNullable<TracingOptions['log']>): DiagLogger {
  const warn = (message: string, ...args: unknown[]) =>
    log.warn({ component: 'opentelemetry', detail: args.map((a) => (a instanceof Error ? a.message : String(a))) }, message);
  const ignore = () => undefined;
  return { error: warn, warn, info: ignore, debug: ignore, verbose: ignore };
}

/** `trace_id` and `span_id` of the active span, for every log line (lib/logger.ts's mixin). */
export function traceLogFields(): Record<string, string> {
  // pino merges the line into the returned object: it must be a fresh one every time.
  if (!enabled) return {};
  const span = trace.getSpan(context.active());
  if (span === undefined) return {};
  const sc = span.spanContext();
  return isSpanContextValid(sc) ? { trace_id: sc.traceId, span_id: sc.spanId } : {};
}

export interface SpanOptions {
  kind?: 'internal' | 'client' | 'server';
  attributes?: Attributes;
  /**
   * Only as a child of an active span: a poller's statement outside any traced work makes no trace
   * of its own (that would be a trace per idle poll).
   */
  requireParent?: boolean;
  /** A new trace (a job run, a webhook delivery), linked to `links`, whatever context is active. */
  root?: boolean;
  links?: Link[];
}

const KINDS = { internal: SpanKind.INTERNAL, client: SpanKind.CLIENT, server: SpanKind.SERVER } as const;

/**
 * Runs `fn` inside a new span that ends when `fn` settles (ERROR status and `error.type` when it
 * throws: the exception's message is not recorded, it may carry values). Tracing off, or no
 * parent with `requireParent`: `fn(undefined)` and nothing else.
 */
export function withSpan<T>(name: string, options: SpanOptions, fn: (span: Span | undefined) => Promise<T>): Promise<T> {
  if (!enabled) return fn(undefined);
  const active = context.active();
  if (options.requireParent === true && trace.getSpan(active) === undefined) return fn(undefined);
  const parent = options.root === true ? ROOT_CONTEXT : active;
  const span = tracer.startSpan(
    name,
    {
      kind: KINDS[options.kind ?? 'internal'],
      ...(options.attributes === undefined ? {} : { attributes: options.attributes }),
      ...(options.links === undefined ? {} : { links: options.links }),
    },
    parent,
  );
  return context.with(trace.setSpan(parent, span), async () => {
    try {
      return await fn(span);
    } catch (error) {
      markError(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** ERROR status with the error's class (`error.type`), never its message. */
export function markError(span: Span, error: unknown): void {
  markFailed(span, String(error instanceof Error ? ((error as { code?: unknown }).code ?? error.name) : typeof error));
}

/** ERROR status with `error.type` (a code, a status, a class name: nothing of the data). */
export function markFailed(span: Span, type: string): void {
  span.setAttribute('error.type', type);
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/** Adds `traceparent` (and `tracestate`) of the active span to outgoing request headers. */
export function injectTraceHeaders(headers: Record<string, string>): void {
  if (enabled) propagation.inject(context.active(), headers);
}

/** The active span as a link (a job run kicked by a request links back to it). */
export function activeSpanLink(): Link[] {
  if (!enabled) return [];
  const span = trace.getSpan(context.active());
  return span === undefined ? [] : [{ context: span.spanContext() }];
}

/**
 * An HTTP server span, continuing the caller's `traceparent` when it sent one. Returns the span
 * and the context to run the rest of the request in; the caller ends the span.
 */
export function startServerSpan(
  name: string,
  headers: Record<string, string | string[] | undefined>,
  attributes: Attributes,
): { span: Span; context: Context } {
  const parent = propagation.extract(ROOT_CONTEXT, headers);
  const span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
  return { span, context: trace.setSpan(parent, span) };
}

/** Runs `fn` in `ctx`; binds an event emitter's later listeners to `ctx`. */
export function runInContext<T>(ctx: Context, fn: () => T): T {
  return context.with(ctx, fn);
}
export function bindToContext<T>(ctx: Context, target: T): T {
  return context.bind(ctx, target);
}

/** `traceresponse` (W3C Trace Context level 2): the trace id a caller can look up. */
export function traceResponseHeader(span: Span): string {
  const sc = span.spanContext();
  return `00-${sc.traceId}-${sc.spanId}-${sc.traceFlags.toString(16).padStart(2, '0')}`;
}

export { SpanStatusCode, type Link, type Span };

/** Most ended spans held for one job run before they are passed on regardless. */
const MAX_HELD_SPANS = 256;
/** Most job runs held open at once (a leak guard: runs end, and their traces with them). */
const MAX_HELD_TRACES = 64;

/**
 * Every job ticks on an interval (the notification processor every second), and most ticks find
 * nothing to do: a trace per idle tick would bury the traces that matter. This processor holds the
 * spans of a job run's trace until its root span ends, then drops the whole trace when the run
 * handled nothing, did not fail and made no outbound call (only its own span and database
 * transactions). Everything else passes straight through.
 */
export class DropIdleJobTraces implements SpanProcessor {
  private readonly held = new Map<string, ReadableSpan[]>();

  constructor(private readonly next: SpanProcessor) {}

  onStart(span: Parameters<SpanProcessor['onStart']>[0], parentContext: Context): void {
    if (span.parentSpanContext === undefined && span.attributes[ATTR.jobName] !== undefined) {
      if (this.held.size < MAX_HELD_TRACES) this.held.set(span.spanContext().traceId, []);
    }
    this.next.onStart(span, parentContext);
  }

  onEnd(span: ReadableSpan): void {
    const traceId = span.spanContext().traceId;
    const held = this.held.get(traceId);
    if (held === undefined) {
      this.next.onEnd(span);
      return;
    }
    if (span.parentSpanContext === undefined) {
      this.held.delete(traceId);
      const idle =
        span.attributes[ATTR.jobHandled] === 0 &&
        span.status.code !== SpanStatusCode.ERROR &&
        held.every(
          (s) =>
            (s.kind === SpanKind.INTERNAL || s.attributes['db.system.name'] !== undefined) &&
            s.status.code !== SpanStatusCode.ERROR,
        );
      if (idle) return;
      for (const s of held) this.next.onEnd(s);
      this.next.onEnd(span);
      return;
    }
    if (held.length < MAX_HELD_SPANS) {
      held.push(span);
      return;
    }
    // A run this big is not idle: pass on what was held and stop holding.
    this.held.delete(traceId);
    for (const s of held) this.next.onEnd(s);
    this.next.onEnd(span);
  }

  forceFlush(): Promise<void> {
    return this.next.forceFlush();
  }

  shutdown(): Promise<void> {
    this.held.clear();
    return this.next.shutdown();
  }
}
