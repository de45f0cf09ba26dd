import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import type {
  XenditChannelCategory,
  XenditEwalletCharge,
  XenditEwalletRefund,
  XenditFixedPaymentCode,
  XenditTransaction,
  XenditVaPaymentCallback,
  XenditVirtualAccount,
} from '../../../src/connectors/xendit/wire.ts';

/**
 * A protocol-faithful local stand-in for Xendit's API, for tests only: a real HTTP server on
 * 127.0.0.1 (ephemeral port) speaking the documented shapes of Fixed Virtual Accounts, E-Wallet
 * Charges, Retail Outlets (fixed payment codes) and Transactions; Basic auth with the secret key;
 * `{error_code, message}` errors; X-IDEMPOTENCY-KEY replays; the test-mode simulate-payment
 * endpoints; callbacks POSTed with `x-callback-token`; and fault controls (hang, 503/429, a
 * callback sent twice). docs/connectors.md ("Xendit") lists what it models and what it does not.
 */
export type CallbackKind = 'virtual_account' | 'retail_outlet' | 'ewallet';

export interface XenditSimulatorOptions {
  secretKey: string;
  callbackToken: string;
  /** Where each product's callbacks go (Xendit's dashboard setting); undefined: recorded, not sent. */
  callbackUrl?: (kind: CallbackKind) => string | undefined;
  now?: () => Date;
}

export interface SentCallback {
  kind: CallbackKind;
  url: string | undefined;
  rawBody: string;
  headers: Record<string, string>;
  /** The receiver's HTTP status (undefined: not sent, or no answer). */
  status?: number;
}

type Match = (method: string, path: string) => boolean;

interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

const BUSINESS_ID = '5f27a14a9bf05c73dd040bc8';
const VA_BANKS: Readonly<Record<string, string>> = {
  BCA: '10766',
  BNI: '8808',
  BRI: '26215',
  MANDIRI: '88608',
  PERMATA: '8214',
  BSI: '7891',
  CIMB: '93490',
};
const VA_MAX_AMOUNT = 50_000_000_000;
const OUTLET_MAX: Readonly<Record<string, number>> = { ALFAMART: 2_500_000, INDOMARET: 5_000_000 };
const EWALLET_CHANNELS = new Set(['ID_DANA', 'ID_SHOPEEPAY', 'ID_LINKAJA', 'ID_OVO']);
const SETTLEMENT_DELAY_MS = 24 * 3_600_000;
const HANG_LIMIT_MS = 30_000;

const err = (status: number, code: string, message: string): Reply => ({ status, body: { error_code: code, message } });

export class XenditSimulator {
  readonly options: XenditSimulatorOptions;
  #server: Server | undefined;
  #url = '';
  readonly #now: () => Date;

  readonly vas = new Map<string, XenditVirtualAccount>();
  readonly vaPayments = new Map<string, XenditVaPaymentCallback>();
  readonly codes = new Map<string, XenditFixedPaymentCode>();
  readonly charges = new Map<string, XenditEwalletCharge>();
  readonly refunds = new Map<string, XenditEwalletRefund>();
  /** Newest first, as GET /transactions lists them. */
  readonly transactions: XenditTransaction[] = [];
  readonly #idempotency = new Map<string, { fingerprint: string; reply: Reply }>();
  readonly #refundByKey = new Map<string, string>();
  readonly sentCallbacks: SentCallback[] = [];
  readonly #deliveries = new Set<Promise<void>>();
  #codeCounter = 100_000;
  #accountCounter = 1_000_000;
  /** Requests received, by "METHOD path" (the path without its query). */
  readonly requests: string[] = [];

  #hang: { remaining: number; match: Match } | undefined;
  #fail: { remaining: number; status: 503 | 429; match: Match } | undefined;
  #duplicateCallbacks = 0;

  constructor(options: XenditSimulatorOptions) {
    this.options = options;
    this.#now = options.now ?? (() => new Date());
  }

  get url(): string {
    return this.#url;
  }

  async listen(): Promise<string> {
    const server = createServer((req, res) => void this.#handle(req, res));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    this.#server = server;
    this.#url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    return this.#url;
  }

  async close(): Promise<void> {
    await this.flushCallbacks();
    const server = this.#server;
    if (server === undefined) return;
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  }

  // ── fault controls ─────────────────────────────────────────────────────────────────────────

  /** The next `count` matching requests get no answer until the client gives up. */
  hangNext(count = 1, match: Match = () => true): void {
    this.#hang = { remaining: count, match };
  }

  /** The next `count` matching requests fail with 503 (SERVER_ERROR) or 429 (RATE_LIMIT_EXCEEDED). */
  failNext(status: 503 | 429, count = 1, match: Match = () => true): void {
    this.#fail = { remaining: count, status, match };
  }

  /** The next `count` callbacks are each delivered twice (Xendit retries; receivers must dedupe). */
  duplicateNextCallback(count = 1): void {
    this.#duplicateCallbacks = count;
  }

  /** Waits for every callback delivery in flight. */
  async flushCallbacks(): Promise<void> {
    while (this.#deliveries.size > 0) await Promise.all([...this.#deliveries]);
  }

  /** Charges made (VAs, payment codes and e-wallet charges): a re-sent create makes none. */
  chargeCount(): number {
    return this.vas.size + this.codes.size + this.charges.size;
  }

  // ── test-mode payer actions without an HTTP endpoint at Xendit ──────────────────────────────

  /** The payer authorises an e-wallet charge in the wallet: SUCCEEDED, `ewallet.capture` callback. */
  payEwallet(id: string): XenditEwalletCharge {
    const charge = this.#charge(id);
    if (charge.status !== 'PENDING') throw new Error(`charge ${id} is ${charge.status}`);
    charge.status = 'SUCCEEDED';
    charge.capture_amount = charge.charge_amount;
    charge.updated = this.#iso();
    this.#record('EWALLET', charge.channel_code, charge.id, charge.reference_id, null, charge.charge_amount);
    this.#callback('ewallet', { event: 'ewallet.capture', business_id: BUSINESS_ID, created: this.#iso(), data: charge });
    return charge;
  }

  /** The wallet fails the charge (default: the payer let the authorisation window pass). */
  failEwallet(id: string, failureCode = 'USER_DID_NOT_AUTHORIZE_THE_PAYMENT'): XenditEwalletCharge {
    const charge = this.#charge(id);
    if (charge.status !== 'PENDING') throw new Error(`charge ${id} is ${charge.status}`);
    charge.status = 'FAILED';
    charge.failure_code = failureCode;
    charge.updated = this.#iso();
    this.#callback('ewallet', { event: 'ewallet.capture', business_id: BUSINESS_ID, created: this.#iso(), data: charge });
    return charge;
  }

  /** A same-day void of a paid charge (the whole amount returns to the payer): `ewallet.void`. */
  voidEwallet(id: string): XenditEwalletCharge {
    const charge = this.#charge(id);
    if (charge.status !== 'SUCCEEDED') throw new Error(`charge ${id} is ${charge.status}`);
    charge.status = 'VOIDED';
    charge.voided_at = this.#iso();
    charge.updated = this.#iso();
    this.#transactionOf(id).forEach((t) => this.#touch(t, { status: 'VOIDED' }));
    this.#callback('ewallet', { event: 'ewallet.void', business_id: BUSINESS_ID, created: this.#iso(), data: charge });
    return charge;
  }

  /** The bank or outlet reverses a payment (no callback: Xendit documents none; a read shows it). */
  reversePayment(productId: string): void {
    const txns = this.#transactionOf(productId);
    if (txns.length === 0) throw new Error(`no payment for ${productId}`);
    txns.forEach((t) => this.#touch(t, { status: 'REVERSED' }));
  }

  /** Xendit settles the payment of a charge now: the Transactions API shows it SETTLED. */
  settle(productId: string): XenditTransaction {
    const txn = this.#transactionOf(productId).find((t) => t.status === 'SUCCESS');
    if (txn === undefined) throw new Error(`no successful payment for ${productId}`);
    this.#touch(txn, { settlement_status: 'SETTLED', estimated_settlement_time: this.#iso() });
    return txn;
  }

  // ── HTTP ───────────────────────────────────────────────────────────────────────────────────

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const path = decodeURIComponent(url.pathname);
    this.requests.push(`${method} ${path}`);
    let raw = '';
    for await (const chunk of req) raw += (chunk as Buffer).toString('utf8');

    if (this.#hang !== undefined && this.#hang.remaining > 0 && this.#hang.match(method, path)) {
      this.#hang.remaining -= 1;
      // Hold the request: the caller's deadline ends it (bounded here so a test cannot leak it).
      const timer = setTimeout(() => res.destroy(), HANG_LIMIT_MS);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    if (this.#fail !== undefined && this.#fail.remaining > 0 && this.#fail.match(method, path)) {
      this.#fail.remaining -= 1;
      const reply =
        this.#fail.status === 429
          ? { ...err(429, 'RATE_LIMIT_EXCEEDED', 'Too many requests'), headers: { 'retry-after': '1' } }
          : err(503, 'SERVER_ERROR', 'Service temporarily unavailable');
      return this.#send(res, reply);
    }
    if (!this.#authorised(req.headers.authorization)) {
      return this.#send(res, err(401, 'INVALID_API_KEY', 'API key is not authorized for this API service'));
    }
    let body: Record<string, unknown> = {};
    if (raw !== '') {
      try {
        const parsed: unknown = JSON.parse(raw);
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
        body = parsed as Record<string, unknown>;
      } catch {
        return this.#send(res, err(400, 'API_VALIDATION_ERROR', 'Request body is not valid JSON'));
      }
    }
    const key = req.headers['x-idempotency-key'];
    const idempotencyKey = typeof key === 'string' && key !== '' ? key : undefined;
    try {
      this.#send(res, this.#route(method, path, url.searchParams, body, raw, idempotencyKey));
    } catch (error) {
      this.#send(res, err(500, 'SERVER_ERROR', (error as Error).message));
    }
  }

  #send(res: ServerResponse, reply: Reply): void {
    res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    res.end(JSON.stringify(reply.body));
  }

  #authorised(header: string | undefined): boolean {
    if (header === undefined || !header.startsWith('Basic ')) return false;
    const decoded = Buffer.from(header.slice('Basic '.length), 'base64').toString('utf8');
    return decoded === `${this.options.secretKey}:`;
  }

  /** Creates honour X-IDEMPOTENCY-KEY: the same key and body replay the first success. */
  #idempotent(scope: string, key: string | undefined, raw: string, create: () => Reply): Reply {
    if (key === undefined) return create();
    const stored = this.#idempotency.get(`${scope}:${key}`);
    if (stored !== undefined) {
      if (stored.fingerprint !== raw) {
        return err(409, 'DUPLICATE_TRANSACTION_ERROR', 'The idempotency key was already used with a different request');
      }
      return stored.reply;
    }
    const reply = create();
    if (reply.status < 300) this.#idempotency.set(`${scope}:${key}`, { fingerprint: raw, reply });
    return reply;
  }

  #route(method: string, path: string, query: URLSearchParams, body: Record<string, unknown>, raw: string, key?: string): Reply {
    let m: RegExpExecArray | null;
    if (method === 'POST' && path === '/callback_virtual_accounts') {
      return this.#idempotent('fva', key, raw, () => this.#createVa(body));
    }
    if ((m = /^\/callback_virtual_accounts\/external_id=(.+)\/simulate_payment$/.exec(path)) && method === 'POST') {
      return this.#simulateVaPayment(m[1] ?? '', body);
    }
    if ((m = /^\/callback_virtual_accounts\/([^/]+)$/.exec(path))) {
      const va = this.vas.get(m[1] ?? '');
      if (va === undefined) {
        return err(404, 'CALLBACK_VIRTUAL_ACCOUNT_NOT_FOUND_ERROR', 'Could not find callback virtual account');
      }
      this.#expireVa(va);
      if (method === 'GET') return { status: 200, body: va };
      if (method === 'PATCH') return this.#updateExpiry(va, body);
    }
    if ((m = /^\/callback_virtual_account_payments\/payment_id=(.+)$/.exec(path)) && method === 'GET') {
      const payment = this.vaPayments.get(m[1] ?? '');
      return payment === undefined ? err(404, 'DATA_NOT_FOUND', 'Could not find the payment') : { status: 200, body: payment };
    }
    if (method === 'POST' && path === '/fixed_payment_code') {
      return this.#idempotent('fpc', key, raw, () => this.#createCode(body));
    }
    if (method === 'POST' && path === '/fixed_payment_code/simulate_payment') return this.#simulateCodePayment(body);
    if ((m = /^\/fixed_payment_code\/([^/]+)$/.exec(path))) {
      const code = this.codes.get(m[1] ?? '');
      if (code === undefined) return err(404, 'DATA_NOT_FOUND', 'Could not find the fixed payment code');
      this.#expireCode(code);
      if (method === 'GET') return { status: 200, body: code };
      if (method === 'PATCH') return this.#updateExpiry(code, body);
    }
    if (method === 'POST' && path === '/ewallets/charges') {
      return this.#idempotent('ewc', key, raw, () => this.#createCharge(body));
    }
    if ((m = /^\/ewallets\/charges\/([^/]+)\/refunds$/.exec(path)) && method === 'POST') {
      return this.#refund(m[1] ?? '', body, raw, key);
    }
    if ((m = /^\/ewallets\/charges\/([^/]+)$/.exec(path)) && method === 'GET') {
      const charge = this.charges.get(m[1] ?? '');
      return charge === undefined ? err(404, 'DATA_NOT_FOUND', 'Charge not found') : { status: 200, body: charge };
    }
    if (method === 'GET' && path === '/transactions') return this.#listTransactions(query);
    return err(404, 'NOT_FOUND', `No route ${method} ${path}`);
  }

  // ── virtual accounts ───────────────────────────────────────────────────────────────────────

  #createVa(b: Record<string, unknown>): Reply {
    const externalId = b['external_id'];
    if (typeof externalId !== 'string' || externalId.length < 1 || externalId.length > 950) {
      return err(400, 'API_VALIDATION_ERROR', '"external_id" is required');
    }
    const bank = b['bank_code'];
    if (typeof bank !== 'string' || !Object.hasOwn(VA_BANKS, bank)) {
      return err(400, 'BANK_NOT_SUPPORTED_ERROR', 'That bank code is not currently supported');
    }
    const name = b['name'];
    if (typeof name !== 'string' || !/^[A-Za-z ]{3,40}$/.test(name)) {
      return err(400, 'API_VALIDATION_ERROR', '"name" must contain only letters and spaces (3-40)');
    }
    if (b['is_closed'] === true && b['expected_amount'] === undefined) {
      return err(400, 'EXPECTED_AMOUNT_REQUIRED_ERROR', 'Expected amount is required for closed virtual accounts');
    }
    const amount = b['expected_amount'];
    if (amount !== undefined && (typeof amount !== 'number' || !Number.isInteger(amount))) {
      return err(400, 'API_VALIDATION_ERROR', '"expected_amount" must be a whole number of rupiah');
    }
    if (typeof amount === 'number' && amount < 1) return err(400, 'MINIMUM_EXPECTED_AMOUNT_ERROR', 'Amount below the minimum');
    if (typeof amount === 'number' && amount > VA_MAX_AMOUNT) {
      return err(400, 'MAXIMUM_EXPECTED_AMOUNT_ERROR', 'Amount above the maximum');
    }
    const expiry = this.#futureDate(b['expiration_date']);
    if (expiry === null) return err(400, 'EXPIRATION_DATE_INVALID_ERROR', 'expiration_date must be a future ISO date');
    if (b['currency'] !== undefined && b['currency'] !== 'IDR') return err(400, 'API_VALIDATION_ERROR', 'Unsupported currency');
    const merchantCode = VA_BANKS[bank] ?? '9999';
    this.#accountCounter += 1;
    const va: XenditVirtualAccount = {
      id: randomHex(24),
      owner_id: BUSINESS_ID,
      external_id: externalId,
      bank_code: bank,
      merchant_code: merchantCode,
      name: bank === 'BNI' ? `XDT-${name}` : name,
      account_number: `${merchantCode}9999${this.#accountCounter}`,
      currency: 'IDR',
      is_closed: b['is_closed'] === true,
      is_single_use: b['is_single_use'] === true,
      ...(typeof amount === 'number' ? { expected_amount: amount } : {}),
      expiration_date: expiry ?? new Date(this.#now().getTime() + 31 * 365 * 86_400_000).toISOString(),
      status: 'PENDING',
    };
    this.vas.set(va.id, va);
    const answer = { ...va };
    // The bank opens the account right away here (at Xendit: moments later, with a callback).
    va.status = 'ACTIVE';
    return { status: 200, body: answer };
  }

  #expireVa(va: XenditVirtualAccount): void {
    if (va.status !== 'INACTIVE' && new Date(va.expiration_date) <= this.#now()) va.status = 'INACTIVE';
  }

  #updateExpiry(target: XenditVirtualAccount | XenditFixedPaymentCode, b: Record<string, unknown>): Reply {
    const raw = b['expiration_date'];
    const at = typeof raw === 'string' ? new Date(raw) : undefined;
    if (at === undefined || Number.isNaN(at.getTime())) {
      return err(400, 'API_VALIDATION_ERROR', '"expiration_date" must be an ISO date');
    }
    // Moving the expiration date to now (or the past) is how an account or code is closed.
    target.expiration_date = at.toISOString();
    if (at <= this.#now()) target.status = 'INACTIVE';
    else if (target.status === 'INACTIVE' && !this.#hasPayment(target.id)) target.status = 'ACTIVE';
    return { status: 200, body: target };
  }

  #simulateVaPayment(externalId: string, b: Record<string, unknown>): Reply {
    const va = [...this.vas.values()].reverse().find((v) => v.external_id === externalId);
    if (va === undefined) return err(404, 'CALLBACK_VIRTUAL_ACCOUNT_NOT_FOUND_ERROR', 'Could not find callback virtual account');
    this.#expireVa(va);
    if (va.status !== 'ACTIVE') return err(400, 'INACTIVE_VIRTUAL_ACCOUNT_ERROR', 'The virtual account is not active');
    const amount = b['amount'];
    if (typeof amount !== 'number' || !Number.isInteger(amount) || amount < 1) {
      return err(400, 'API_VALIDATION_ERROR', '"amount" must be a positive whole number');
    }
    if (va.is_closed && amount !== va.expected_amount) {
      return err(400, 'API_VALIDATION_ERROR', 'The amount must equal the expected amount of a closed virtual account');
    }
    const now = this.#iso();
    const paymentId = `${externalId}_${randomHex(8)}`;
    const payment: XenditVaPaymentCallback = {
      id: randomHex(24),
      payment_id: paymentId,
      callback_virtual_account_id: va.id,
      owner_id: BUSINESS_ID,
      external_id: va.external_id,
      account_number: va.account_number,
      bank_code: va.bank_code,
      amount,
      merchant_code: va.merchant_code,
      currency: 'IDR',
      transaction_timestamp: now,
      sender_name: 'JOHN DOE',
      created: now,
      updated: now,
    };
    this.vaPayments.set(paymentId, payment);
    if (va.is_single_use) va.status = 'INACTIVE';
    this.#record('VIRTUAL_ACCOUNT', va.bank_code, va.id, va.external_id, va.account_number, amount);
    this.#callback('virtual_account', payment);
    return {
      status: 200,
      body: { status: 'COMPLETED', message: `Payment for the Fixed VA with external id ${externalId} is being processed` },
    };
  }

  // ── fixed payment codes ────────────────────────────────────────────────────────────────────

  #createCode(b: Record<string, unknown>): Reply {
    const externalId = b['external_id'];
    if (typeof externalId !== 'string' || externalId.length < 1 || externalId.length > 950) {
      return err(400, 'API_VALIDATION_ERROR', '"external_id" is required');
    }
    const outlet = b['retail_outlet_name'];
    if (typeof outlet !== 'string' || !Object.hasOwn(OUTLET_MAX, outlet)) {
      return err(400, 'API_VALIDATION_ERROR', '"retail_outlet_name" must be one of [ALFAMART, INDOMARET]');
    }
    const name = b['name'];
    if (typeof name !== 'string' || !/^[A-Za-z ]{1,40}$/.test(name)) return err(400, 'API_VALIDATION_ERROR', '"name" is invalid');
    const amount = b['expected_amount'];
    const max = OUTLET_MAX[outlet] ?? 0;
    if (typeof amount !== 'number' || !Number.isInteger(amount) || amount < 10_000 || amount > max) {
      return err(400, 'API_VALIDATION_ERROR', `"expected_amount" must be a whole number between 10000 and ${max}`);
    }
    const expiry = this.#futureDate(b['expiration_date']);
    if (expiry === null) return err(400, 'API_VALIDATION_ERROR', '"expiration_date" must be a future ISO date');
    const requested = b['payment_code'];
    if (requested !== undefined && [...this.codes.values()].some((c) => c.payment_code === requested)) {
      return err(400, 'DUPLICATE_PAYMENT_CODE_ERROR', 'The payment code already exists');
    }
    this.#codeCounter += 1;
    const code: XenditFixedPaymentCode = {
      id: randomHex(24),
      owner_id: BUSINESS_ID,
      external_id: externalId,
      retail_outlet_name: outlet,
      prefix: 'TEST',
      name,
      payment_code: typeof requested === 'string' ? requested : `TEST${this.#codeCounter}`,
      type: 'USER',
      expected_amount: amount,
      is_single_use: b['is_single_use'] === true,
      expiration_date: expiry ?? new Date(this.#now().getTime() + 31 * 365 * 86_400_000).toISOString(),
      status: 'ACTIVE',
    };
    this.codes.set(code.id, code);
    return { status: 200, body: { ...code } };
  }

  #expireCode(code: XenditFixedPaymentCode): void {
    if (code.status !== 'INACTIVE' && new Date(code.expiration_date) <= this.#now()) code.status = 'INACTIVE';
  }

  #simulateCodePayment(b: Record<string, unknown>): Reply {
    const code = [...this.codes.values()].find(
      (c) => c.payment_code === b['payment_code'] && c.retail_outlet_name === b['retail_outlet_name'],
    );
    if (code === undefined) return err(404, 'DATA_NOT_FOUND', 'Could not find the fixed payment code');
    this.#expireCode(code);
    if (code.status !== 'ACTIVE') return err(400, 'INACTIVE_PAYMENT_CODE_ERROR', 'The payment code is not active');
    if (b['transfer_amount'] !== code.expected_amount) {
      return err(400, 'API_VALIDATION_ERROR', 'transfer_amount must equal the expected amount');
    }
    const now = this.#iso();
    const paymentId = randomHex(24);
    if (code.is_single_use) code.status = 'INACTIVE';
    this.#record('RETAIL_OUTLET', code.retail_outlet_name, code.id, code.external_id, code.payment_code, code.expected_amount);
    this.#callback('retail_outlet', {
      id: randomHex(24),
      external_id: code.external_id,
      prefix: code.prefix,
      payment_code: code.payment_code,
      retail_outlet_name: code.retail_outlet_name,
      name: code.name,
      amount: code.expected_amount,
      status: 'COMPLETED',
      transaction_timestamp: now,
      payment_id: paymentId,
      fixed_payment_code_payment_id: paymentId,
      fixed_payment_code_id: code.id,
      owner_id: BUSINESS_ID,
    });
    return {
      status: 200,
      body: { status: 'COMPLETED', message: 'Payment for the Fixed Payment Code was successfully simulated' },
    };
  }

  // ── e-wallet charges ───────────────────────────────────────────────────────────────────────

  #createCharge(b: Record<string, unknown>): Reply {
    const reference = b['reference_id'];
    if (typeof reference !== 'string' || reference === '') return err(400, 'API_VALIDATION_ERROR', '"reference_id" is required');
    if (b['currency'] !== 'IDR') return err(400, 'UNSUPPORTED_CURRENCY', 'The payment currency is not supported');
    const amount = b['amount'];
    if (typeof amount !== 'number' || !Number.isInteger(amount) || amount < 100 || amount > 10_000_000) {
      return err(400, 'API_VALIDATION_ERROR', '"amount" must be a whole number between 100 and 10000000');
    }
    if (b['checkout_method'] !== 'ONE_TIME_PAYMENT') return err(400, 'API_VALIDATION_ERROR', 'Unsupported checkout_method');
    const channel = b['channel_code'];
    if (typeof channel !== 'string' || !EWALLET_CHANNELS.has(channel)) {
      return err(400, 'API_VALIDATION_ERROR', '"channel_code" is not a supported e-wallet channel');
    }
    const props = (
      typeof b['channel_properties'] === 'object' && b['channel_properties'] !== null ? b['channel_properties'] : {}
    ) as Record<string, string>;
    if (channel === 'ID_OVO' ? typeof props['mobile_number'] !== 'string' : typeof props['success_redirect_url'] !== 'string') {
      return err(400, 'API_VALIDATION_ERROR', 'channel_properties are missing a required field');
    }
    const id = `ewc_${randomUUID()}`;
    const checkout = `${this.#url}/_test_checkout/${id}`;
    const now = this.#iso();
    const charge: XenditEwalletCharge = {
      id,
      business_id: BUSINESS_ID,
      reference_id: reference,
      status: 'PENDING',
      currency: 'IDR',
      charge_amount: amount,
      capture_amount: null,
      refunded_amount: null,
      checkout_method: 'ONE_TIME_PAYMENT',
      channel_code: channel,
      channel_properties: props,
      actions: {
        desktop_web_checkout_url: channel === 'ID_DANA' || channel === 'ID_LINKAJA' ? checkout : null,
        mobile_web_checkout_url: channel === 'ID_DANA' || channel === 'ID_LINKAJA' ? checkout : null,
        mobile_deeplink_checkout_url: channel === 'ID_SHOPEEPAY' ? `shopeeid://main?checkout=${id}` : null,
        qr_checkout_string: channel === 'ID_SHOPEEPAY' ? `00020101021226${id}` : null,
      },
      is_redirect_required: channel !== 'ID_OVO',
      callback_url: this.options.callbackUrl?.('ewallet') ?? '',
      created: now,
      updated: now,
      voided_at: null,
      capture_now: true,
      failure_code: null,
      metadata: (typeof b['metadata'] === 'object' && b['metadata'] !== null ? b['metadata'] : null) as Record<
        string,
        string
      > | null,
    };
    this.charges.set(id, charge);
    return { status: 202, body: { ...charge } };
  }

  #refund(chargeId: string, b: Record<string, unknown>, raw: string, key: string | undefined): Reply {
    // A re-sent refund (same key) answers the refund as it is now.
    if (key !== undefined) {
      const existing = this.#refundByKey.get(`${chargeId}:${key}`);
      const refund = existing === undefined ? undefined : this.refunds.get(existing);
      if (refund !== undefined) return { status: 200, body: refund };
    }
    const charge = this.charges.get(chargeId);
    if (charge === undefined) return err(404, 'DATA_NOT_FOUND', 'Charge not found');
    if (charge.status !== 'SUCCEEDED') return err(400, 'INELIGIBLE_TRANSACTION_ERROR', 'Only a succeeded charge can be refunded');
    const captured = charge.capture_amount ?? 0;
    const already = charge.refunded_amount ?? 0;
    const amount = b['amount'] ?? captured - already;
    if (typeof amount !== 'number' || !Number.isInteger(amount) || amount < 1) {
      return err(400, 'API_VALIDATION_ERROR', '"amount" must be a positive whole number');
    }
    if (amount > captured - already) return err(400, 'REFUND_AMOUNT_EXCEEDED', 'The refund exceeds the refundable amount');
    void raw;
    const now = this.#iso();
    const refund: XenditEwalletRefund = {
      id: `ewr_${randomUUID()}`,
      charge_id: chargeId,
      status: 'SUCCEEDED',
      currency: charge.currency,
      channel_code: charge.channel_code,
      capture_amount: captured,
      refund_amount: amount,
      reason: typeof b['reason'] === 'string' ? b['reason'] : 'OTHERS',
      failure_code: null,
      created: now,
      updated: now,
    };
    this.refunds.set(refund.id, refund);
    if (key !== undefined) this.#refundByKey.set(`${chargeId}:${key}`, refund.id);
    charge.refunded_amount = already + amount;
    if (charge.refunded_amount === captured) charge.status = 'REFUNDED';
    charge.updated = now;
    return { status: 200, body: refund };
  }

  #charge(id: string): XenditEwalletCharge {
    const charge = this.charges.get(id);
    if (charge === undefined) throw new Error(`no charge ${id}`);
    return charge;
  }

  // ── transactions ───────────────────────────────────────────────────────────────────────────

  #record(
    category: XenditChannelCategory,
    channel: string,
    productId: string,
    referenceId: string,
    account: string | null,
    amount: number,
  ): void {
    // Test-mode fees: VA IDR 4,000, retail IDR 5,000, e-wallet 1.5% (rounded up), each + 11% VAT.
    const fee =
      category === 'VIRTUAL_ACCOUNT' ? 4_000 : category === 'RETAIL_OUTLET' ? 5_000 : Math.floor((amount * 15 + 999) / 1_000);
    const vat = Math.floor((fee * 11 + 99) / 100);
    const now = this.#now();
    this.transactions.unshift({
      id: `txn_${randomUUID()}`,
      product_id: productId,
      type: 'PAYMENT',
      status: 'SUCCESS',
      channel_category: category,
      channel_code: channel,
      reference_id: referenceId,
      account_identifier: account,
      currency: 'IDR',
      amount,
      net_amount: amount - fee - vat,
      cashflow: 'MONEY_IN',
      settlement_status: 'PENDING',
      estimated_settlement_time: new Date(now.getTime() + SETTLEMENT_DELAY_MS).toISOString(),
      business_id: BUSINESS_ID,
      created: now.toISOString(),
      updated: now.toISOString(),
      fee: {
        xendit_fee: fee,
        value_added_tax: vat,
        xendit_withholding_tax: 0,
        third_party_withholding_tax: 0,
        status: 'COMPLETED',
      },
    });
  }

  #transactionOf(productId: string): XenditTransaction[] {
    return this.transactions.filter((t) => t.product_id === productId && t.type === 'PAYMENT');
  }

  #touch(t: XenditTransaction, changes: Partial<XenditTransaction>): void {
    Object.assign(t, changes, { updated: this.#iso() });
  }

  #hasPayment(productId: string): boolean {
    return this.#transactionOf(productId).length > 0;
  }

  #listTransactions(q: URLSearchParams): Reply {
    const limit = q.get('limit') === null ? 10 : Number(q.get('limit'));
    if (!Number.isInteger(limit) || limit < 1 || limit > 50) return err(400, 'API_VALIDATION_ERROR', '"limit" must be 1-50');
    const multi = (name: string) =>
      q
        .getAll(name)
        .flatMap((v) => v.split(','))
        .filter((v) => v !== '');
    const types = multi('types');
    const statuses = multi('statuses');
    const categories = multi('channel_categories');
    const reference = q.get('reference_id');
    const productId = q.get('product_id');
    const bound = (name: string) => {
      const v = q.get(name);
      return v === null ? undefined : new Date(v);
    };
    const [createdGte, createdLte, updatedGte, updatedLte] = [
      bound('created[gte]'),
      bound('created[lte]'),
      bound('updated[gte]'),
      bound('updated[lte]'),
    ];
    let rows = this.transactions.filter(
      (t) =>
        (types.length === 0 || types.includes(t.type)) &&
        (statuses.length === 0 || statuses.includes(t.status)) &&
        (categories.length === 0 || categories.includes(t.channel_category)) &&
        (reference === null || t.reference_id.includes(reference)) &&
        (productId === null || t.product_id === productId) &&
        (createdGte === undefined || new Date(t.created) >= createdGte) &&
        (createdLte === undefined || new Date(t.created) <= createdLte) &&
        (updatedGte === undefined || new Date(t.updated) >= updatedGte) &&
        (updatedLte === undefined || new Date(t.updated) <= updatedLte),
    );
    const after = q.get('after_id');
    if (after !== null) {
      const index = rows.findIndex((t) => t.id === after);
      if (index < 0) return err(400, 'API_VALIDATION_ERROR', 'Unknown after_id');
      rows = rows.slice(index + 1);
    }
    const page = rows.slice(0, limit);
    const hasMore = rows.length > limit;
    const last = page[page.length - 1];
    return {
      status: 200,
      body: {
        has_more: hasMore,
        data: page,
        links:
          hasMore && last !== undefined
            ? [{ href: `/transactions?after_id=${last.id}&limit=${limit}`, method: 'GET', rel: 'next' }]
            : [],
      },
    };
  }

  // ── callbacks ──────────────────────────────────────────────────────────────────────────────

  #callback(kind: CallbackKind, payload: unknown): void {
    const rawBody = JSON.stringify(payload);
    const times = this.#duplicateCallbacks > 0 ? 2 : 1;
    if (this.#duplicateCallbacks > 0) this.#duplicateCallbacks -= 1;
    for (let i = 0; i < times; i += 1) {
      const sent: SentCallback = {
        kind,
        url: this.options.callbackUrl?.(kind),
        rawBody,
        headers: { 'content-type': 'application/json', 'x-callback-token': this.options.callbackToken },
      };
      this.sentCallbacks.push(sent);
      if (sent.url === undefined) continue;
      const url = sent.url;
      // Deliveries run in order: a duplicate arrives after its original.
      const previous = [...this.#deliveries];
      const delivery: Promise<void> = Promise.all(previous)
        .then(() => fetch(url, { method: 'POST', headers: sent.headers, body: rawBody, signal: AbortSignal.timeout(10_000) }))
        .then(async (res) => {
          sent.status = res.status;
          await res.text();
        })
        .catch(() => undefined)
        .finally(() => this.#deliveries.delete(delivery));
      this.#deliveries.add(delivery);
    }
  }

  // ── helpers ────────────────────────────────────────────────────────────────────────────────

  #iso(): string {
    return this.#now().toISOString();
  }

  /** undefined: absent; null: present but not a future date. */
  #futureDate(value: unknown): string | undefined | null {
    if (value === undefined) return undefined;
    if (typeof value !== 'string') return null;
    const at = new Date(value);
    if (Number.isNaN(at.getTime()) || at <= this.#now()) return null;
    return at.toISOString();
  }
}

function randomHex(length: number): string {
  return randomUUID().replace(/-/g, '').concat(randomUUID().replace(/-/g, '')).slice(0, length);
}

/** A simulator listening on loopback. */
export async function startXenditSimulator(options: XenditSimulatorOptions): Promise<XenditSimulator> {
  const simulator = new XenditSimulator(options);
  await simulator.listen();
  return simulator;
}
