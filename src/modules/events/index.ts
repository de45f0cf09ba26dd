/** The public entry of the events module: what other modules may use. */
export { type EventRecord, findEvent, listEventsOfObjects } from './event-log-repo.ts';
export { insertEvent, insertEventStatement } from './event-repo.ts';
export { ALL_EVENTS, EVENT_TYPE_NAMES } from './event-types.ts';
export { type StoredEvent, eventBody } from './event-view.ts';
