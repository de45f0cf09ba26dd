import type { Event, ListEventsQuery, RedeliverEventBody } from '../../sdk/src/index.ts';
import { type Command, idArg, stringOpt } from './cli-command.ts';
import { CliUsageError, intArg, type Output, table } from './cli-output.ts';

/** `events list|get|resend`: the event log (GET /event…) and redelivery, through the SDK. */

export const objectIdOf = (e: Event): string => {
  const id = e.data.object['id'];
  return typeof id === 'string' ? id : '';
};

export function eventRows(out: Output, events: readonly Event[]): string {
  if (events.length === 0) return 'no events';
  return table([
    ['ID', 'TYPE', 'OBJECT', 'CREATED'].map((h) => out.paint.dim(h)),
    ...events.map((e) => [e.id, out.paint.cyan(e.type), objectIdOf(e), e.created_at]),
  ]);
}

const list: Command = {
  name: 'events list',
  synopsis: '[--type T|group.*] [--object-id ID] [--limit N] [--starting-after EVT_ID]',
  summary: 'one page of events, newest first',
  options: {
    type: { type: 'string' },
    'object-id': { type: 'string' },
    limit: { type: 'string' },
    'starting-after': { type: 'string' },
  },
  args: { min: 0, max: 0 },
  async run(ctx) {
    const query: ListEventsQuery = {};
    const limit = intArg(stringOpt(ctx, 'limit'), '--limit', 1, 100);
    if (limit !== undefined) query.limit = limit;
    const type = stringOpt(ctx, 'type');
    if (type !== undefined) query.type = type;
    const objectId = stringOpt(ctx, 'object-id');
    if (objectId !== undefined) query.object_id = objectId;
    const after = stringOpt(ctx, 'starting-after');
    if (after !== undefined) query.starting_after = after;
    const page = await ctx.client().events.list(query);
    ctx.out.result(page, () => {
      const last = page.data.at(-1);
      const more = page.has_more && last !== undefined ? `\n${ctx.out.paint.dim(`more: --starting-after ${last.id}`)}` : '';
      return `${eventRows(ctx.out, page.data)}${more}`;
    });
  },
};

const get: Command = {
  name: 'events get',
  synopsis: 'EVT_ID',
  summary: 'one event: exactly the JSON its webhook deliveries carry',
  options: {},
  args: { min: 1, max: 1 },
  async run(ctx) {
    const event = await ctx.client().events.retrieve(idArg(ctx, 0, 'evt', 'an event'));
    ctx.out.result(
      event,
      () => `${ctx.out.paint.bold(event.id)}  ${ctx.out.paint.cyan(event.type)}\n${JSON.stringify(event, null, 2)}`,
    );
  },
};

const resend: Command = {
  name: 'events resend',
  synopsis: 'EVT_ID [--endpoint WE_ID | --callback-url]',
  summary: 'deliver an event again: to every subscribed endpoint and the callback_url, or to one of them',
  options: { endpoint: { type: 'string' }, 'callback-url': { type: 'boolean', default: false } },
  args: { min: 1, max: 1 },
  async run(ctx) {
    const eventId = idArg(ctx, 0, 'evt', 'an event');
    const endpoint = stringOpt(ctx, 'endpoint');
    const toCallback = ctx.values['callback-url'] === true;
    if (endpoint !== undefined && toCallback) throw new CliUsageError('--endpoint or --callback-url, not both');
    const body: RedeliverEventBody = {};
    if (endpoint !== undefined) body.endpoint_id = endpoint;
    if (toCallback) body.callback_url = true;
    const deliveries = await ctx.client().events.resend(eventId, body);
    ctx.out.result(deliveries, () => {
      if (deliveries.data.length === 0) return `Nothing to resend ${eventId} to (no subscribed endpoint, no callback_url).`;
      const lines = deliveries.data.map(
        (d) => `  ${d.id}  → ${d.target === 'webhook_endpoint' ? (d.endpoint_id ?? '') : (d.callback_url ?? '')}`,
      );
      return [
        `Scheduled ${deliveries.data.length} deliver${deliveries.data.length === 1 ? 'y' : 'ies'} of ${eventId}:`,
        ...lines,
      ].join('\n');
    });
  },
};

export const EVENTS_COMMANDS: readonly Command[] = [list, get, resend];
