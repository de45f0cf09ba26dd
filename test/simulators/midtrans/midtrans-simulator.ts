import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MidtransTransaction } from '../../../src/connectors/midtrans/wire.ts';

/**
 * A loopback simulator of Midtrans' Core API, written from its public documentation
 * (docs.midtrans.com: Charge API for bank_transfer / echannel / cstore, Get Status, Cancel, Expire,
 * HTTP(S) Notification, Status Codes). It is a real HTTP server on 127.0.0.1 with an ephemeral port,
 * independent of the connector's code (it computes its own signatures and renders its own answers;
 * only the field types of a transaction come from the connector's wire description).
 *
 * Modeled: Basic auth with the server key (401 otherwise); `POST /v2/charge` (400 validation, 406
 * duplicate order_id while the order is live or paid; an expired or canceled order_id may be reused,
 * as Midtrans documents); `GET /v2/{order_id|transaction_id}/status` (404 unknown; 407 for an
 * expired transaction, answered with HTTP 200 as Midtrans does); `POST …/cancel` and `…/expire` (412
 * once the transaction is final); `custom_expiry`; `custom_field1..3` echoed; notifications POSTed
 * with `signature_key` to the dashboard URL or the charge's `X-Override-Notification` URLs.
 *
 * The payer and the bank are control endpoints under `/_simulator/` (Midtrans' sandbox has a
 * payment simulator web page instead): pay, deny, chargeback, expire-due. Fault controls: hang the
 * next request, fail the next one with a 5xx (in the HTTP status, or HTTP 200 with the code in the
 * body), send the next notification twice. `httpStatus: 'always200'` answers every error with HTTP
 * 200 and the code only in `status_code`, as older Midtrans endpoints do.
 *
 * Not modeled: refunds (bank transfer and cstore have no refund API), card payments, GoPay/QRIS,
 * Snap, notification retries on failure, partial/open-amount VAs, settlement (withdrawal) reports.
 */
export interface MidtransSimulatorOptions {
  serverKey: string;
  now: () => Date;
  /** The dashboard's Payment Notification URL (used when a charge names none). */
  notificationUrl?: string;
  /** `mirror` (default): an error's HTTP status is its status_code. `always200`: always HTTP 200. */
  httpStatus?: 'mirror' | 'always200';
  /** Send notifications as they happen (default false: the test calls deliverNotifications()). */
  autoDeliver?: boolean;
}

/**
 * A transaction as the simulator keeps it: the fields Midtrans renders (their types from the wire
 * description the connector also reads), minus what `render` adds per answer, plus bookkeeping.
 */
export interface SimTransaction extends Omit<
  MidtransTransaction,
  'status_code' | 'status_message' | 'signature_key' | 'refunds' | 'merchant_id' | 'currency' | 'payment_type' | 'expiry_time'
> {
  merchant_id: string;
  currency: 'IDR';
  payment_type: 'bank_transfer' | 'echannel' | 'cstore';
  expiry_time: string;
  /** Simulator bookkeeping, not rendered. */
  notifyUrls: string[];
}

export interface SentNotification {
  url: string;
  body: string;
  status: number | 'error';
}

type Fault =
  | { kind: 'hang' }
  | { kind: 'fail'; status: 500 | 503; inBody: boolean }
  | { kind: 'answer'; code: string; message: string }
  | { kind: 'lose_answer' };

const MERCHANT_ID = 'G000000001';
const ALLOWED_ORDER_ID = /^[A-Za-z0-9\-_~.]{1,50}$/;
const JAKARTA_OFFSET_MS = 7 * 3_600_000;
const UNIT_SECONDS: Readonly<Record<string, number>> = { second: 1, minute: 60, hour: 3_600, day: 86_400 };

/** The status_code a transaction in this state carries (docs "Status Codes", notification samples). */
const CODE_OF_STATUS: Readonly<Record<string, string>> = {
  pending: '201',
  settlement: '200',
  capture: '200',
  cancel: '200',
  deny: '202',
  expire: '407',
  chargeback: '200',
};

function jakarta(at: Date): string {
  return new Date(at.getTime() + JAKARTA_OFFSET_MS).toISOString().slice(0, 19).replace('T', ' ');
}

function parseOrderTime(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) \+0700$/.exec(value);
  if (m === null) return undefined;
  const [, y, mo, d, h, mi, s] = m.map(Number) as [number, number, number, number, number, number, number];
  return new Date(Date.UTC(y, mo - 1, d, h, mi, s) - JAKARTA_OFFSET_MS);
}

function digits(n: number): string {
  let out = '';
  for (let i = 0; i < n; i += 1) out += String(Math.floor(Math.random() * 10));
  return out;
}

export class MidtransSimulator {
  readonly options: MidtransSimulatorOptions;
  /** Every transaction, oldest first (an order_id may have several once an old one expired). */
  readonly transactions: SimTransaction[] = [];
  readonly sent: SentNotification[] = [];
  /** Requests received (method and path), for assertions on what the connector called. */
  readonly requests: { method: string; path: string; authorization: string | undefined }[] = [];
  readonly #queue: { urls: string[]; body: string }[] = [];
  readonly #faults: Fault[] = [];
  readonly #held = new Set<http.ServerResponse>();
  readonly #lose = new WeakSet<http.ServerResponse>();
  #duplicateNext = 0;
  #server: http.Server | undefined;
  #origin = '';

  constructor(options: MidtransSimulatorOptions) {
    this.options = options;
  }

  get origin(): string {
    return this.#origin;
  }

  get chargeCount(): number {
    return this.transactions.length;
  }

  async start(): Promise<this> {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        void this.#handle(req, res, Buffer.concat(chunks).toString('utf8')).catch((error: unknown) => {
          if (!res.headersSent) this.#reply(res, 500, { status_code: '500', status_message: String(error) });
        });
      });
    });
    server.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', resolve));
    this.#server = server;
    this.#origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    for (const res of this.#held) res.destroy();
    this.#held.clear();
    const server = this.#server;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  // ── fault and notification controls ───────────────────────────────────────────────────────

  /** The next `n` API requests get no answer until the simulator closes. */
  hangNext(n = 1): void {
    for (let i = 0; i < n; i += 1) this.#faults.push({ kind: 'hang' });
  }

  /** The next API request is answered with this Midtrans error code (e.g. 402: payment type not enabled). */
  answerNext(code: string, message: string): void {
    this.#faults.push({ kind: 'answer', code, message });
  }

  /** The next API request is carried out, then its connection dropped before the answer (a lost answer). */
  loseNextAnswer(): void {
    this.#faults.push({ kind: 'lose_answer' });
  }

  /** The next API request fails with a 5xx (HTTP status, or HTTP 200 with status_code in the body). */
  failNext(status: 500 | 503 = 500, inBody = false): void {
    this.#faults.push({ kind: 'fail', status, inBody });
  }

  /** The next `n` notifications are sent twice (Midtrans: "in extremely rare cases…"). */
  duplicateNextNotification(n = 1): void {
    this.#duplicateNext += n;
  }

  /** Sends the queued notifications, in order; returns what was sent. */
  async deliverNotifications(): Promise<SentNotification[]> {
    const out: SentNotification[] = [];
    while (this.#queue.length > 0) {
      const next = this.#queue.shift();
      if (next === undefined) break;
      for (const url of next.urls) out.push(await this.#post(url, next.body));
    }
    return out;
  }

  /** Notifications waiting to be sent (their bodies). */
  get pendingNotifications(): string[] {
    return this.#queue.map((n) => n.body);
  }

  /** The latest transaction under an order_id or with a transaction_id. */
  find(id: string): SimTransaction | undefined {
    for (let i = this.transactions.length - 1; i >= 0; i -= 1) {
      const t = this.transactions[i];
      if (t !== undefined && (t.order_id === id || t.transaction_id === id)) return t;
    }
    return undefined;
  }

  /** Renders a transaction as Midtrans does (status API and notification body, minus signature). */
  render(t: SimTransaction, statusCode = CODE_OF_STATUS[t.transaction_status] ?? '200'): Record<string, unknown> {
    const { notifyUrls: _urls, ...wire } = t;
    return { status_code: statusCode, status_message: this.#statusMessage(t), ...wire };
  }

  signature(orderId: string, statusCode: string, grossAmount: string, key = this.options.serverKey): string {
    return createHash('sha512')
      .update(orderId + statusCode + grossAmount + key)
      .digest('hex');
  }

  // ── the payer, the bank and the clock, as control endpoints ───────────────────────────────

  /** The payer pays in full: pending → settlement, with a notification. */
  pay(id: string): SimTransaction {
    return this.#transition(id, 'pending', 'settlement', (t) => {
      t.settlement_time = jakarta(this.options.now());
    });
  }

  deny(id: string): SimTransaction {
    return this.#transition(id, 'pending', 'deny');
  }

  /** The payer's side takes the money back: settlement → chargeback. */
  chargeback(id: string): SimTransaction {
    return this.#transition(id, 'settlement', 'chargeback');
  }

  /** Expires every pending transaction whose expiry_time has passed (Midtrans' own job). */
  expireDue(): number {
    let n = 0;
    const now = jakarta(this.options.now());
    for (const t of this.transactions) {
      if (t.transaction_status === 'pending' && t.expiry_time <= now) {
        t.transaction_status = 'expire';
        // The expiry notification sample carries status_code 202.
        this.#notify(t, '202');
        n += 1;
      }
    }
    return n;
  }

  // ── HTTP ──────────────────────────────────────────────────────────────────────────────────

  #reply(res: http.ServerResponse, httpStatus: number, body: Record<string, unknown>): void {
    if (this.#lose.has(res)) {
      res.socket?.destroy();
      return;
    }
    res.writeHead(httpStatus, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  }

  /** Answers with Midtrans' body; the HTTP status follows the body's code unless always200. */
  #answer(res: http.ServerResponse, body: Record<string, unknown>, transaction = false): void {
    const code = Number(body['status_code']);
    const mirror = (this.options.httpStatus ?? 'mirror') === 'mirror';
    const httpStatus = !mirror || transaction ? (code === 201 ? 201 : 200) : code >= 400 ? code : code === 201 ? 201 : 200;
    this.#reply(res, httpStatus, body);
  }

  #error(res: http.ServerResponse, code: string, message: string): void {
    this.#answer(res, { status_code: code, status_message: message, id: randomUUID() });
  }

  async #handle(req: http.IncomingMessage, res: http.ServerResponse, raw: string): Promise<void> {
    const url = new URL(req.url ?? '/', this.#origin);
    const path = url.pathname;
    this.requests.push({ method: req.method ?? '', path, authorization: req.headers.authorization });

    if (path.startsWith('/_simulator/')) return this.#control(req, res, path, raw);

    const fault = this.#faults.shift();
    if (fault?.kind === 'hang') {
      this.#held.add(res);
      res.on('close', () => this.#held.delete(res));
      return;
    }
    if (fault?.kind === 'fail') {
      const body = { status_code: String(fault.status), status_message: 'An unexpected error occurred on Midtrans' };
      this.#reply(res, fault.inBody ? 200 : fault.status, body);
      return;
    }
    if (fault?.kind === 'answer') return this.#error(res, fault.code, fault.message);
    // Do the work, then drop the connection instead of answering: the caller cannot know whether it happened.
    if (fault?.kind === 'lose_answer') this.#lose.add(res);

    if (!this.#authorized(req.headers.authorization)) {
      return this.#error(res, '401', 'Access denied due to unauthorized transaction, please check client or server key');
    }
    if (req.method === 'POST' && path === '/v2/charge') return this.#charge(req, res, raw);
    const m = /^\/v2\/([^/]+)\/(status|cancel|expire)$/.exec(path);
    if (m === null) return this.#error(res, '404', 'The requested resource is not found');
    const id = decodeURIComponent(m[1] ?? '');
    const verb = m[2];
    if (verb === 'status' && req.method !== 'GET') return this.#error(res, '405', 'HTTP method is not allowed');
    if (verb !== 'status' && req.method !== 'POST') return this.#error(res, '405', 'HTTP method is not allowed');
    const t = this.find(id);
    if (t === undefined) return this.#error(res, '404', "Transaction doesn't exist.");
    if (verb === 'status') return this.#answer(res, this.render(t), true);
    if (t.transaction_status !== 'pending') {
      return this.#error(res, '412', 'Merchant cannot modify the status of the transaction');
    }
    if (verb === 'cancel') {
      t.transaction_status = 'cancel';
      this.#notify(t, '200');
      return this.#answer(res, { ...this.render(t, '200'), status_message: 'Success, transaction is canceled' }, true);
    }
    t.transaction_status = 'expire';
    this.#notify(t, '202');
    return this.#answer(res, { ...this.render(t, '407'), status_message: 'Success, transaction has expired' }, true);
  }

  #authorized(header: string | undefined): boolean {
    if (header === undefined || !header.startsWith('Basic ')) return false;
    const decoded = Buffer.from(header.slice('Basic '.length), 'base64').toString('utf8');
    return decoded === `${this.options.serverKey}:`;
  }

  #charge(req: http.IncomingMessage, res: http.ServerResponse, raw: string): void {
    let body: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(raw);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
      body = parsed as Record<string, unknown>;
    } catch {
      return this.#error(res, '413', 'The request cannot be processed due to malformed syntax in the request body');
    }
    const details = body['transaction_details'] as Record<string, unknown> | undefined;
    const orderId = details?.['order_id'];
    // The amount is read from the exact JSON text: a whole number of rupiah, never through a float.
    const grossLexeme = /"gross_amount"\s*:\s*(-?[\d.eE+-]+)/.exec(raw)?.[1];
    const validation = (message: string) =>
      this.#answer(res, {
        status_code: '400',
        status_message: 'One or more parameters in the payload is invalid.',
        validation_messages: [message],
        id: randomUUID(),
      });
    if (typeof orderId !== 'string' || !ALLOWED_ORDER_ID.test(orderId))
      return validation('transaction_details.order_id is invalid');
    if (grossLexeme === undefined || !/^[1-9]\d{0,14}$/.test(grossLexeme)) {
      return validation('transaction_details.gross_amount must be a whole number of rupiah');
    }
    const live = this.find(orderId);
    if (live !== undefined && live.transaction_status !== 'expire' && live.transaction_status !== 'cancel') {
      return this.#error(
        res,
        '406',
        'The request could not be processed because order_id has been paid and utilized, please use another order ID',
      );
    }
    const now = this.options.now();
    const type = body['payment_type'];
    const tx: SimTransaction = {
      transaction_id: randomUUID(),
      order_id: orderId,
      merchant_id: MERCHANT_ID,
      gross_amount: `${grossLexeme}.00`,
      currency: 'IDR',
      payment_type: 'bank_transfer',
      transaction_time: jakarta(now),
      transaction_status: 'pending',
      expiry_time: '',
      notifyUrls: [],
    };
    let message: string;
    if (type === 'bank_transfer') {
      const bank = (body['bank_transfer'] as Record<string, unknown> | undefined)?.['bank'];
      if (bank === 'permata') tx.permata_va_number = `8562${digits(12)}`;
      else if (bank === 'bca' || bank === 'bni' || bank === 'bri') {
        const prefix = { bca: '12345', bni: '9888', bri: '8578' }[bank];
        tx.va_numbers = [{ bank, va_number: `${prefix}${digits(11)}` }];
      } else return validation('bank_transfer.bank must be one of permata, bni, bri, bca, cimb');
      tx.fraud_status = 'accept';
      message =
        bank === 'permata' ? 'Success, PERMATA VA transaction is successful' : 'Success, Bank Transfer transaction is created';
    } else if (type === 'echannel') {
      const e = body['echannel'] as Record<string, unknown> | undefined;
      if (typeof e?.['bill_info1'] !== 'string' || typeof e['bill_info2'] !== 'string') {
        return validation('echannel.bill_info1 and echannel.bill_info2 are required');
      }
      tx.payment_type = 'echannel';
      tx.bill_key = digits(12);
      tx.biller_code = '70012';
      tx.fraud_status = 'accept';
      message = 'OK, Mandiri Bill transaction is successful';
    } else if (type === 'cstore') {
      const store = (body['cstore'] as Record<string, unknown> | undefined)?.['store'];
      if (store !== 'alfamart' && store !== 'indomaret') return validation('cstore.store must be alfamart or indomaret');
      tx.payment_type = 'cstore';
      tx.store = store;
      tx.payment_code = store === 'alfamart' ? `0001${digits(12)}` : digits(14);
      message = 'Success, cstore transaction is successful';
    } else {
      return validation('payment_type is not supported');
    }
    // custom_expiry: duration from order_time (or from the transaction time), default 24 hours.
    let expiresAt = new Date(now.getTime() + 24 * 3_600_000);
    const ce = body['custom_expiry'] as Record<string, unknown> | undefined;
    if (ce !== undefined) {
      const unitSeconds = UNIT_SECONDS[typeof ce['unit'] === 'string' ? ce['unit'] : 'minute'];
      const duration = ce['expiry_duration'];
      const start = ce['order_time'] === undefined ? now : parseOrderTime(ce['order_time']);
      if (unitSeconds === undefined || typeof duration !== 'number' || !Number.isInteger(duration) || start === undefined) {
        return validation('custom_expiry is invalid');
      }
      expiresAt = new Date(start.getTime() + duration * unitSeconds * 1_000);
      if (expiresAt.getTime() - now.getTime() < 20_000) return validation('custom_expiry must be at least 20 seconds away');
    }
    tx.expiry_time = jakarta(expiresAt);
    for (const k of ['custom_field1', 'custom_field2', 'custom_field3'] as const) {
      if (typeof body[k] === 'string') tx[k] = body[k];
    }
    const override = req.headers['x-override-notification'];
    const urls = (Array.isArray(override) ? override.join(',') : (override ?? ''))
      .split(',')
      .map((u) => u.trim())
      .filter((u) => u !== '')
      .slice(0, 3);
    tx.notifyUrls = urls.length > 0 ? urls : this.options.notificationUrl === undefined ? [] : [this.options.notificationUrl];
    this.transactions.push(tx);
    this.#notify(tx, '201');
    this.#answer(res, { ...this.render(tx, '201'), status_message: message }, true);
  }

  #control(req: http.IncomingMessage, res: http.ServerResponse, path: string, raw: string): void {
    // Control endpoints stand in for the payer and the bank; they need no server key (like the
    // sandbox's payment simulator page) but are reachable only on loopback.
    let body: Record<string, unknown> = {};
    try {
      body = raw === '' ? {} : (JSON.parse(raw) as Record<string, unknown>);
    } catch {
      return this.#reply(res, 400, { error: 'bad json' });
    }
    try {
      const id = this.#idFromPaymentNumber(body);
      const act: Record<string, () => unknown> = {
        '/_simulator/pay': () => this.pay(id),
        '/_simulator/deny': () => this.deny(id),
        '/_simulator/chargeback': () => this.chargeback(id),
        '/_simulator/expire-due': () => ({ expired: this.expireDue() }),
      };
      const fn = req.method === 'POST' ? act[path] : undefined;
      if (fn === undefined) return this.#reply(res, 404, { error: 'no such control' });
      const result = fn();
      const out = (result as SimTransaction).transaction_id === undefined ? result : this.render(result as SimTransaction);
      this.#reply(res, 200, out as Record<string, unknown>);
    } catch (error) {
      this.#reply(res, 409, { error: error instanceof Error ? error.message : String(error) });
    }
  }

  /** The payer knows a VA number, a bill key or a payment code; tests may also name the order. */
  #idFromPaymentNumber(body: Record<string, unknown>): string {
    const number = typeof body['payment_number'] === 'string' ? body['payment_number'] : undefined;
    if (number !== undefined) {
      const t = this.transactions.find(
        (x) =>
          x.permata_va_number === number ||
          x.bill_key === number ||
          x.payment_code === number ||
          (x.va_numbers ?? []).some((v) => v.va_number === number),
      );
      if (t !== undefined) return t.transaction_id;
    }
    return typeof body['order_id'] === 'string' ? body['order_id'] : '';
  }

  #statusMessage(t: SimTransaction): string {
    return t.transaction_status === 'pending' ? 'Success, transaction is found' : 'midtrans payment notification';
  }

  #transition(id: string, from: string, to: string, change?: (t: SimTransaction) => void): SimTransaction {
    const t = this.find(id);
    if (t === undefined) throw new Error(`no transaction ${id}`);
    if (t.transaction_status !== from) throw new Error(`transaction is ${t.transaction_status}, not ${from}`);
    t.transaction_status = to;
    change?.(t);
    this.#notify(t, CODE_OF_STATUS[to] ?? '200');
    return t;
  }

  #notify(t: SimTransaction, statusCode: string): void {
    const payload = {
      ...this.render(t, statusCode),
      status_message: 'midtrans payment notification',
      signature_key: this.signature(t.order_id, statusCode, t.gross_amount),
    };
    const body = JSON.stringify(payload);
    const copies = this.#duplicateNext > 0 ? 2 : 1;
    if (this.#duplicateNext > 0) this.#duplicateNext -= 1;
    for (let i = 0; i < copies; i += 1) this.#queue.push({ urls: t.notifyUrls, body });
    if (this.options.autoDeliver === true) void this.deliverNotifications();
  }

  async #post(url: string, body: string): Promise<SentNotification> {
    let sent: SentNotification;
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', 'user-agent': 'Veritrans' },
        body,
        signal: AbortSignal.timeout(15_000),
      });
      await res.text();
      sent = { url, body, status: res.status };
    } catch {
      sent = { url, body, status: 'error' };
    }
    this.sent.push(sent);
    return sent;
  }
}

export async function startMidtransSimulator(options: MidtransSimulatorOptions): Promise<MidtransSimulator> {
  return new MidtransSimulator(options).start();
}
