/** The public entry of the notifications module: what other modules may use. */
export { type StoredNotification, listNotificationsForPayment } from './notification-repo.ts';
