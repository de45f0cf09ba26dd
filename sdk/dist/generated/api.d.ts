/** The API version this SDK was generated against (`info.version` of the OpenAPI document). */
export declare const API_VERSION = "2026-11-01";
/** SHA-256 of the OpenAPI document these types were generated from. */
export declare const OPENAPI_SHA256 = "0878eb71f0c338654a63bb3578ed7271dadcb10b69d2fb56ac367e136150ff3b";
/** The body of every error response. */
export type ErrorBody = {
    /** Stable snake_case error code; see docs/errors.md. */
    code: 'invalid_json' | 'invalid_request' | 'invalid_idempotency_key' | 'invalid_api_version' | 'unauthorized' | 'client_secret_invalid' | 'invalid_signature' | 'resource_not_found' | 'route_not_found' | 'method_not_allowed' | 'reference_no_conflict' | 'idempotency_request_in_progress' | 'checkout_not_open' | 'checkout_changed' | 'checkout_busy' | 'payment_link_inactive' | 'payment_link_expired' | 'payment_link_used_up' | 'payment_state_conflict' | 'webhook_endpoint_disabled' | 'payload_too_large' | 'unsupported_media_type' | 'idempotency_key_reused' | 'currency_not_supported' | 'amount_out_of_range' | 'channel_not_offered' | 'channel_unavailable' | 'operation_not_supported' | 'refund_not_supported' | 'refund_exceeds_captured' | 'webhook_endpoint_limit_reached' | 'rate_limited' | 'internal_error' | 'service_unavailable' | 'provider_unavailable';
    /** Human-readable explanation. Do not parse it. */
    message: string;
    details: Record<string, unknown>[];
    /** The `req_…` id of this request, also in the `Request-Id` header. */
    request_id: string;
};
export type Payment = {
    /** `pay_…` */
    id: string;
    object: 'payment';
    environment: 'sandbox' | 'production';
    /** See docs/payments.md for the state machine. */
    status: 'processing' | 'pending' | 'succeeded' | 'failed' | 'expired' | 'canceled' | 'reversed';
    /** Major units, exact. */
    amount: number;
    currency: string;
    amount_refunded: number;
    reference_no: string;
    description: string | null;
    /** The channel in use (resolved from auto). */
    channel: 'bank' | 'ewallet' | 'counter' | null;
    channel_requested: 'bank' | 'ewallet' | 'counter' | 'auto';
    payment_method: {
        channel: 'bank' | 'ewallet' | 'counter';
        connector: string;
        instrument: string;
        instrument_name: string;
    } | null;
    /** What the payer needs; null until a provider issued them (status processing). */
    instructions: {
        type: 'virtual_account';
        bank_code: string;
        bank_name: string;
        account_number: string;
        account_holder_name: string;
        amount: number;
        currency: string;
        /** Pay before this time. */
        expires_at: string;
    } | {
        type: 'ewallet';
        provider: string;
        provider_name: string;
        checkout_url: string;
        deep_link: string;
        qr_string: string;
        amount: number;
        currency: string;
        /** Pay before this time. */
        expires_at: string;
    } | {
        type: 'counter';
        partner: string;
        partner_name: string;
        payment_code: string;
        barcode_value: string;
        outlets: string[];
        amount: number;
        currency: string;
        /** Pay before this time. */
        expires_at: string;
    } | null;
    /** The hosted page showing the instructions to the payer. */
    pay_url: string;
    metadata: Record<string, string>;
    email: string | null;
    callback_url: string | null;
    failure_code: string | null;
    failure_message: string | null;
    /** Bumped by every change; events carry it so receivers can order them. */
    version: number;
    api_version: string;
    /** When a pending payment expires. */
    expires_at: string;
    /** Creation time. */
    created_at: string;
    /** Last change. */
    updated_at: string;
    /** When the payer paid. */
    succeeded_at: string | null;
    /** When the payment reached a final state. */
    closed_at: string | null;
    /** `stl_…`: the settlement that paid this payment out; null until settled. */
    settlement_id: string | null;
    /** When the provider settled the payment. */
    settled_at: string | null;
    /** The provider's fee on this payment, exact, in major units; null until settled. */
    fee: number | null;
    /** amount_paid − fee: what the provider paid out, exact, in major units; null until settled. */
    net: number | null;
    /** What the payer paid, as the provider reported it. Differs from `amount` on an under- or over-payment. */
    amount_paid: number;
    late_payment: {
        attempt_id: string;
        /** When the provider reported the payment. */
        received_at: string;
        amount: number;
        /** `accepted`: the payment became succeeded. `refund_required`: the money is to be returned; the payment stays closed. */
        resolution: 'accepted' | 'refund_required';
        reason: 'paid_before_expiry' | 'merchant_policy' | 'reference_no_reused' | 'payment_failed' | 'stray_attempt';
    } | null;
    /** Set when the payment was canceled with a reason. */
    cancellation_reason: 'requested_by_customer' | 'duplicate' | 'fraudulent' | 'abandoned' | null;
    /** Set when the provider reversed the payment: `chargeback` (bank, e-wallet), `counter_reversal` (counter), or the code the provider reported. */
    reversal_reason: string | null;
    routing: {
        /** Connectors in the order they were (or would be) tried. */
        candidates: {
            connector: string;
            channel: 'bank' | 'ewallet' | 'counter';
            instrument: string;
        }[];
        /** Why each enabled connector is a candidate (with its rank) or excluded. */
        trace: {
            connector: string;
            channel: 'bank' | 'ewallet' | 'counter';
            decision: 'candidate' | 'excluded';
            reason: string;
            rank?: number;
        }[];
        /** Attempts made when the instructions were issued; a failed one means failover to the next. */
        attempts: {
            attempt_id: string;
            connector: string;
            status: string;
            error_code: string | null;
        }[];
    } | null;
    /** When the payer's personal data (`email`, and e-mail addresses in `description` and `metadata` values) was erased, by `POST /payment/{id}/erase_payer_data` or the retention period (docs/payer-data.md); null while it is kept. Absent only from an idempotent replay of an answer stored before this field existed (replays are byte for byte). */
    payer_data_erased_at?: string | null;
};
export type PaymentList = {
    object: 'list';
    /** Newest first (`created_at` descending, then `id` descending). */
    data: Payment[];
    /** Whether another page follows. */
    has_more: boolean;
    /** Pass as `starting_after` to get the next page; null on the last page. */
    next_cursor: string | null;
};
export type PaymentMethod = {
    object: 'payment_method';
    channel: 'bank' | 'ewallet' | 'counter';
    /** The connector that serves this method, e.g. `sandbox_bank`. */
    connector: string;
    connector_name: string;
    instruments: {
        /** Bank code (`BCA`), wallet (`DANA`) or counter partner (`ALFAMART`). */
        code: string;
        name: string;
    }[];
    /** Accepted currencies and amount bounds; only the requested currency when `currency` is given. */
    currencies: {
        /** ISO 4217 code. */
        currency: string;
        /** Smallest accepted amount, major units, exact. */
        min_amount: number;
        /** Largest accepted amount, major units, exact. */
        max_amount: number;
    }[];
    instruction_expiry: {
        /** How long issued instructions stay payable by default. */
        default_seconds: number;
        min_seconds: number;
        max_seconds: number;
    };
    supports: {
        cancel: boolean;
        refund: boolean;
        partial_refund: boolean;
    };
};
export type PaymentMethodList = {
    object: 'list';
    data: PaymentMethod[];
};
/** A refund of all or part of a succeeded payment, or of a late payment owed back to its payer. */
export type Refund = {
    /** `ref_…` */
    id: string;
    object: 'refund';
    environment: 'sandbox' | 'production';
    /** The refunded payment, `pay_…`. */
    payment_id: string;
    /** Major units. */
    amount: number;
    currency: string;
    /** `pending` until the provider answers finally; then `succeeded` or `failed` (never changes again). */
    status: 'pending' | 'succeeded' | 'failed';
    /** `payment`: money the payment captured; `late_payment`: a late payment given back to the payer. */
    source: 'payment' | 'late_payment';
    reason: 'requested_by_customer' | 'duplicate' | 'fraudulent' | null;
    /** The provider's reason when `failed`. */
    failure_code: string | null;
    failure_message: string | null;
    /** Grows with every change; events carry it. */
    version: number;
    /** When the refund was requested. */
    created_at: string;
    /** Last change. */
    updated_at: string;
    /** When it became succeeded or failed. */
    completed_at: string | null;
};
export type Balance = {
    object: 'balance';
    environment: 'sandbox' | 'production';
    /** One line per currency you have had money in. */
    balances: {
        currency: string;
        /** Owed to you from paid payments not settled yet (major units). */
        pending: number;
        /** Owed to you from settled payments (major units). */
        available: number;
        /** Held for refunds the provider has not finished (major units). */
        refunds_in_flight: number;
        /** Late payments you did not get, held to be refunded to their payers (major units; not yours). */
        owed_to_payers: number;
    }[];
    /** Only with `verify=true`: the balances re-derived from every posting and compared with the cached ones. */
    verification: {
        status: 'ok' | 'mismatch';
        /** When the ledger was re-derived. */
        checked_at: string;
        violations: {
            kind: string;
            detail: string;
        }[];
    } | null;
};
export type WebhookEndpoint = {
    /** `we_…` */
    id: string;
    object: 'webhook_endpoint';
    environment: 'sandbox' | 'production';
    /** Where events are POSTed. https in production. */
    url: string;
    description: string | null;
    /** Event types sent to this endpoint; `["*"]` is every type. */
    enabled_events: string[];
    status: 'enabled' | 'disabled';
    /** `manual`: you disabled it; `gone`: it answered 410; `failing`: every attempt failed for 5 days. */
    disabled_reason: 'manual' | 'gone' | 'failing' | null;
    /** Start of the current run of failed attempts; null when the last attempt succeeded. */
    failing_since: string | null;
    /** Until then, requests are also signed with the previous secret. */
    previous_secret_expires_at: string | null;
    version: number;
    /** Creation time. */
    created_at: string;
    /** Last change. */
    updated_at: string;
};
export type WebhookEndpointWithSecret = {
    /** `we_…` */
    id: string;
    object: 'webhook_endpoint';
    environment: 'sandbox' | 'production';
    /** Where events are POSTed. https in production. */
    url: string;
    description: string | null;
    /** Event types sent to this endpoint; `["*"]` is every type. */
    enabled_events: string[];
    status: 'enabled' | 'disabled';
    /** `manual`: you disabled it; `gone`: it answered 410; `failing`: every attempt failed for 5 days. */
    disabled_reason: 'manual' | 'gone' | 'failing' | null;
    /** Start of the current run of failed attempts; null when the last attempt succeeded. */
    failing_since: string | null;
    /** Until then, requests are also signed with the previous secret. */
    previous_secret_expires_at: string | null;
    version: number;
    /** Creation time. */
    created_at: string;
    /** Last change. */
    updated_at: string;
    /** The signing secret (`whsec_…`). Shown only in this answer: store it now. */
    secret: string;
};
export type Event = {
    /** `evt_…`; also the `webhook-id` header of every delivery of this event. */
    id: string;
    /** See docs/webhook-events.md. Ignore types you do not know. */
    type: string;
    /** When the change happened. */
    created_at: string;
    /** The API version the object is rendered in. */
    api_version: string;
    data: {
        /** The object after the change, with its `version` (order events of one object by it). */
        object: Record<string, unknown>;
        /** The changed fields before the change. */
        previous_attributes: Record<string, unknown>;
    };
};
export type WebhookDelivery = {
    /** `dlv_…` */
    id: string;
    object: 'webhook_delivery';
    event_id: string;
    target: 'webhook_endpoint' | 'callback_url';
    endpoint_id: string | null;
    callback_url: string | null;
    trigger: 'event' | 'redelivery';
    status: 'pending' | 'succeeded' | 'failed' | 'canceled';
    /** `exhausted`: every scheduled attempt failed; `gone`: the receiver answered 410. */
    failure_reason: 'exhausted' | 'gone' | 'endpoint_disabled' | 'endpoint_deleted' | null;
    attempt_count: number;
    /** Pending: the next attempt happens no later than this. */
    next_attempt_at: string | null;
    /** Last attempt. */
    last_attempt_at: string | null;
    last_status_code: number | null;
    /** When the delivery was scheduled. */
    created_at: string;
    /** When it succeeded, failed for good or was canceled. */
    completed_at: string | null;
    attempts: {
        /** `dla_…` */
        id: string;
        object: 'webhook_attempt';
        attempt_number: number;
        url: string;
        /** `blocked`: the URL resolved to an address Tributary may not call (private, loopback, metadata…). */
        outcome: 'succeeded' | 'http_error' | 'redirect' | 'timeout' | 'network_error' | 'blocked';
        status_code: number | null;
        duration_ms: number;
        /** The first 2 KiB of the answer. */
        response_body: string | null;
        error: string | null;
        /** When the request was sent. */
        attempted_at: string;
    }[];
};
export type CallbackSecret = {
    object: 'callback_secret';
    environment: 'sandbox' | 'production';
    /** The `whsec_…` secret that signs callback_url requests. Shown once: null once it has been read. */
    secret: string | null;
    /** When the current secret was shown. */
    revealed_at: string | null;
    /** Until then, callbacks are also signed with the previous secret. */
    previous_secret_expires_at: string | null;
    /** Creation time. */
    created_at: string;
    /** Last rotation. */
    rotated_at: string | null;
};
export type Settlement = {
    /** `stl_…` */
    id: string;
    object: 'settlement';
    environment: string;
    /** The connector whose provider paid this batch out. */
    connector: string;
    currency: string;
    /** What the provider collected for these payments, exact, in major units. */
    gross: number;
    /** The provider's fees, exact, in major units. */
    fee: number;
    /** gross − fee: what the provider paid out, exact, in major units. */
    net: number;
    payment_count: number;
    /** Start of the period the batch covers: when the earliest of its payments was paid (`succeeded_at`). */
    period_start: string;
    /** End of the period the batch covers: the latest provider settlement time of its payments. */
    period_end: string;
    /** When Tributary recorded the batch. */
    created_at: string;
    payments?: {
        payment_id: string;
        reference_no: string;
        provider_reference: string;
        /** What the provider collected for this payment, exact, in major units. */
        gross: number;
        /** The provider's fee on it, exact, in major units. */
        fee: number;
        /** gross − fee, exact, in major units. */
        net: number;
        /** When the provider settled it. */
        settled_at: string;
    }[];
};
export type SettlementList = {
    object: 'list';
    /** Newest first; each without `payments` (GET /settlement/{id} lists them). */
    data: Settlement[];
    has_more: boolean;
    /** Pass as `starting_after` to get the next page; null on the last page. */
    next_cursor: string | null;
};
export type SettlementException = {
    /** `stx_…` */
    id: string;
    object: 'settlement_exception';
    connector: string;
    /** Why the line was not applied (docs/money.md "Settlement"). */
    kind: 'unknown_reference' | 'amount_mismatch' | 'currency_mismatch' | 'not_succeeded' | 'already_settled';
    /** `open` until an operator resolves it; `resolved` is final. */
    status: 'open' | 'resolved';
    /** The payment the line names, when it is one of yours. */
    payment_id: string | null;
    /** The provider's charge reference on the line. */
    provider_reference: string;
    /** The currency the provider reported. */
    currency: string;
    /** Gross as the provider reported it, exact, in major units. */
    gross: number;
    /** Fee as the provider reported it, exact, in major units. */
    fee: number;
    /** The provider's settlement time on the line. */
    settled_at: string;
    /** One sentence on what did not agree. */
    detail: string;
    /** When an operator resolved it. */
    resolved_at: string | null;
    /** The operator's note on what was done. */
    resolution: string | null;
    /** When the ingestion recorded it. */
    created_at: string;
};
export type SettlementExceptionList = {
    object: 'list';
    /** Newest first. */
    data: SettlementException[];
    has_more: boolean;
    /** Pass as `starting_after` to get the next page; null on the last page. */
    next_cursor: string | null;
};
export type Reconciliation = {
    /** `rec_…` */
    id: string;
    object: 'reconciliation';
    environment: string;
    connector: string;
    /** Start of the window (inclusive). */
    from: string;
    /** End of the window (exclusive). */
    to: string;
    /** `matched`: every line matched; `discrepancies`: at least one line did not (see docs/money.md). */
    status: 'matched' | 'discrepancies';
    /** `report_lines`, `matched`, `discrepancies`, and the count of each discrepancy kind. */
    summary: Record<string, number>;
    /** When the reconciliation ran. */
    created_at: string;
    /** The first 100 lines; GET /reconciliation/{id}/lines pages through all of them. */
    lines?: {
        /** The line's position in the reconciliation (report lines first, in report order, then `missing_in_report`). */
        seq: number;
        /** matched, or the discrepancy kind (docs/money.md "Reconciliation"). */
        result: 'matched' | 'missing_in_ours' | 'missing_in_report' | 'amount_mismatch' | 'currency_mismatch' | 'duplicate' | 'unknown_reference' | 'late';
        payment_id: string | null;
        provider_reference: string;
        report: {
            currency: string;
            /** Gross as the provider reported it, exact, in major units. */
            gross: number;
            fee: number;
            net: number;
            /** Settlement time as the provider reported it. */
            settled_at: string;
        } | null;
        ours: {
            settlement_id: string;
            currency: string;
            /** Gross as Tributary recorded it, exact, in major units. */
            gross: number;
            fee: number;
            net: number;
            /** Settlement time as Tributary recorded it. */
            settled_at: string;
        } | null;
    }[];
    /** More lines follow the ones in `lines`. */
    lines_has_more?: boolean;
    /** Pass as `starting_after` to GET /reconciliation/{id}/lines for the next page; null on the last. */
    lines_next_cursor?: string | null;
};
export type ReconciliationLineList = {
    object: 'list';
    /** In line order. */
    data: {
        /** The line's position in the reconciliation (report lines first, in report order, then `missing_in_report`). */
        seq: number;
        /** matched, or the discrepancy kind (docs/money.md "Reconciliation"). */
        result: 'matched' | 'missing_in_ours' | 'missing_in_report' | 'amount_mismatch' | 'currency_mismatch' | 'duplicate' | 'unknown_reference' | 'late';
        payment_id: string | null;
        provider_reference: string;
        report: {
            currency: string;
            /** Gross as the provider reported it, exact, in major units. */
            gross: number;
            fee: number;
            net: number;
            /** Settlement time as the provider reported it. */
            settled_at: string;
        } | null;
        ours: {
            settlement_id: string;
            currency: string;
            /** Gross as Tributary recorded it, exact, in major units. */
            gross: number;
            fee: number;
            net: number;
            /** Settlement time as Tributary recorded it. */
            settled_at: string;
        } | null;
    }[];
    has_more: boolean;
    /** Pass as `starting_after` to GET /reconciliation/{id}/lines for the next page; null on the last. */
    next_cursor: string | null;
};
export type AuditEntry = {
    /** `aud_…` */
    id: string;
    object: 'audit_entry';
    /** What was done (docs/audit-log.md lists where each is recorded). */
    action: 'user.signed_in' | 'user.sign_in_failed' | 'user.signed_out' | 'user.two_factor_enrolled' | 'user.recovery_code_used' | 'user.password_changed' | 'member.invited' | 'member.invitation_revoked' | 'member.joined' | 'member.role_changed' | 'member.removed' | 'member.ownership_transferred' | 'api_key.created' | 'api_key.rolled' | 'api_key.revoked' | 'refund.created' | 'payment.canceled' | 'payment.payer_data_erased' | 'event.redelivered' | 'webhook_endpoint.created' | 'webhook_endpoint.updated' | 'webhook_endpoint.deleted' | 'webhook_endpoint.secret_rotated' | 'callback_secret.rotated' | 'merchant.settings_updated' | 'reconciliation.created' | 'settlement_exception.resolved' | 'checkout.expired' | 'payment_link.created' | 'payment_link.deactivated';
    /** `failed` only for refused sign-ins. */
    outcome: 'succeeded' | 'failed';
    /** Null for what is the merchant as a whole (members, settings). */
    environment: 'sandbox' | 'production' | null;
    target: {
        /** `payment`, `refund`, `api_key`, `webhook_endpoint`, … */
        type: string | null;
        /** The object changed, when it has an id. */
        id: string | null;
    };
    actor: {
        type: 'api_key' | 'user' | 'operator' | 'system';
        /** The key (`key_…`) or the person (`usr_…`); null for the operator. */
        id: string | null;
        /** The key's display prefix (never the secret), the person's e-mail, or the operator's name. */
        label: string;
        /** The person's role at the time; null for a key. */
        role: 'owner' | 'admin' | 'developer' | 'finance' | 'support' | 'viewer' | null;
    };
    /** The request's client address; null from the CLI. */
    address: string | null;
    user_agent: string | null;
    /** The request's id (the `Request-Id` header of its answer). */
    request_id: string | null;
    /** What changed: `{field: value}` or `{field: {from, to}}`; never a secret or a payer's personal data. */
    changes: Record<string, unknown>;
    /** When the change committed. */
    occurred_at: string;
};
export type AuditEntryList = {
    object: 'list';
    /** Newest first. */
    data: AuditEntry[];
    /** Whether another page follows. */
    has_more: boolean;
    /** Pass as `starting_after` to get the next page; null on the last page. */
    next_cursor: string | null;
};
export type Checkout = {
    /** `cs_…` */
    id: string;
    object: 'checkout';
    /** See docs/checkout.md for the state machine. */
    status: 'open' | 'completed' | 'expired';
    /** The hosted checkout page for the payer (`/pay/cs_…`). Not served yet (a 404 page until it is, docs/checkout.md): select from your own UI meanwhile. */
    url: string;
    /** Major units. */
    amount: number;
    currency: string;
    reference_no: string;
    description: string | null;
    email: string | null;
    metadata: Record<string, string>;
    callback_url: string | null;
    channels: ('bank' | 'ewallet' | 'counter')[];
    success_url: string | null;
    cancel_url: string | null;
    /** The current payment id, or null; expanded to the payment where an answer says so (select, checkout.completed). */
    payment: (string | null) | Payment;
    /** Every payment the checkout made, oldest first. */
    payments: string[];
    /** When the checkout expires if nobody pays. */
    expires_at: string;
    version: number;
    /** When it was created. */
    created_at: string;
    /** When it last changed. */
    updated_at: string;
    /** When it completed or expired. */
    closed_at: string | null;
    /** When the payer's personal data was erased with its payments' (docs/payer-data.md); null while it is kept. Absent only from an idempotent replay of an answer stored before this field existed (replays are byte for byte). */
    payer_data_erased_at?: string | null;
    /** Only in the create answer: authorises the payer's selection. */
    client_secret?: string;
};
export type CheckoutList = {
    object: 'list';
    data: Checkout[];
    has_more: boolean;
    next_cursor: string | null;
};
export type PaymentLink = {
    /** `plink_…` */
    id: string;
    object: 'payment_link';
    /** `inactive`: deactivated (final); `expired`: past `expires_at`. See docs/checkout.md, section 8. */
    status: 'active' | 'inactive' | 'expired';
    /** The hosted link page for payers (`/pay/plink_…`). */
    url: string;
    /** The fixed amount, or null when the payer enters it. Major units. */
    amount: number | null;
    /** The least a payer may enter, or null for a fixed amount. Major units. */
    amount_min: number | null;
    /** The most a payer may enter, or null for a fixed amount. Major units. */
    amount_max: number | null;
    currency: string;
    description: string | null;
    /** Null: every channel that can serve the amount. */
    channels: ('bank' | 'ewallet' | 'counter')[] | null;
    success_url: string | null;
    cancel_url: string | null;
    /** Null: unlimited. */
    max_uses: number | null;
    /** Uses not held by a completed or open checkout now; null when unlimited. */
    remaining_uses: number | null;
    /** When the link stops taking visits; null: never. */
    expires_at: string | null;
    /** Seconds each visit's checkout stays open. */
    checkout_expires_in: number;
    /** The link's checkouts by status. */
    checkouts: {
        open: number;
        completed: number;
        expired: number;
    };
    totals: {
        /** The sum of the completed checkouts' amounts, in major units. */
        collected: number;
        completed_count: number;
    };
    version: number;
    /** When it was created. */
    created_at: string;
    /** When it last changed. */
    updated_at: string;
    /** When it was deactivated. */
    deactivated_at: string | null;
};
export type PaymentLinkList = {
    object: 'list';
    data: PaymentLink[];
    has_more: boolean;
    next_cursor: string | null;
};
/**
 * Create a payment
 *
 * Creates a payment and returns it with the instructions the payer needs. Send an `Idempotency-Key` header so that retries never create a second payment. A `reference_no` already used by a live payment is 409 `reference_no_conflict`. When no connector can take it: 422 `currency_not_supported`, `amount_out_of_range` or `channel_unavailable`; when no provider answers, 503 `provider_unavailable` (retry with the same key).
 */
export type CreatePaymentParams = Record<string, never>;
export type CreatePaymentQuery = Record<string, never>;
export type CreatePaymentBody = {
    /** Amount in major units as a JSON number (not a string), with at most the currency’s ISO 4217 minor-unit digits: `150000.00` IDR, `10.5` USD, `5000` VND (more digits is `amount_too_precise`). At most 15 significant digits in minor units: 999999999999999 VND, 9999999999999.99 IDR (more is `amount_too_large`). */
    amount: number;
    /** An active ISO 4217 code in upper case (an inactive or unknown code is `unknown_currency`). */
    currency: string;
    /** Your reference for the payment (printable ASCII, no leading or trailing space). Unique among your live (processing, pending, succeeded) payments. */
    reference_no: string;
    /** Free text, without the NUL character (`invalid_character`). */
    description?: string | null;
    /** Payment channel; `auto` (the default) lets Tributary choose. */
    channel?: 'bank' | 'ewallet' | 'counter' | 'auto' | null;
    /** Receives this payment's events, signed with the merchant callback secret. An absolute http(s) URL (`invalid_url`, `unsupported_scheme`); https in production (`https_required`); no credentials (`credentials_in_url`), default ports only (`port_not_allowed`), public addresses only (`private_address`). */
    callback_url?: string | null;
    /** Up to 50 string values (at most 500 characters, without the NUL character: `invalid_character`) under keys of 1-40 letters, digits and _ . : - (another key is `invalid_metadata_key`). */
    metadata?: Record<string, string> | null;
    /** The payer's e-mail address; its domain must contain a dot (`user@example.com`, not `user@localhost`). */
    email?: string | null;
};
export type CreatePaymentResponse = Payment;
/**
 * Retrieve a payment
 *
 * Returns the payment with its current status and instructions. Another merchant's or the other environment's id answers 404, exactly like an unknown id.
 */
export type GetPaymentParams = {
    /** `pay_…` */
    id: string;
};
export type GetPaymentQuery = Record<string, never>;
export type GetPaymentBody = undefined;
export type GetPaymentResponse = Payment;
/**
 * List payments
 *
 * Your payments in the environment of the API key, newest first, one page at a time. Pass the `next_cursor` of a page as `starting_after` to get the next one; pages stay consistent while new payments arrive. Unknown query parameters are refused.
 */
export type ListPaymentsParams = Record<string, never>;
export type ListPaymentsQuery = {
    /** Page size, 1-100 (default 10). */
    limit?: number;
    /** A payment id (`next_cursor` of the previous page): the page starts right after it. An id that is not one of your payments in this environment is a 400 `unknown_cursor`. */
    starting_after?: string;
    /** Only payments in this status. */
    status?: 'processing' | 'pending' | 'succeeded' | 'failed' | 'expired' | 'canceled' | 'reversed';
    /** Only payments with this reference_no (exact match). */
    reference_no?: string;
    /** Only payments on this (resolved) channel. */
    channel?: 'bank' | 'ewallet' | 'counter';
    /** Created at or after this instant (RFC 3339, e.g. `2026-01-31T00:00:00Z`; encode `+` as `%2B`). */
    created_gte?: string;
    /** Created at or before this instant (RFC 3339). */
    created_lte?: string;
};
export type ListPaymentsBody = undefined;
export type ListPaymentsResponse = PaymentList;
/**
 * List the payment methods you can offer
 *
 * The channels, connectors, instruments (bank codes, wallets, counter partners), currencies with amount bounds and instruction expiry available to your key’s environment. With `amount` and `currency`, only the methods a payment of that amount would be routed to, in routing order; an empty list means no method accepts it.
 */
export type ListPaymentMethodsParams = Record<string, never>;
export type ListPaymentMethodsQuery = {
    /** Only methods that accept this amount (major units, at most the currency’s minor-unit digits, e.g. `150000.00`). Requires `currency` (without it, `required`); `amount_too_precise`, `amount_too_large`, `amount_not_positive` and `amount_not_a_number` as for create. */
    amount?: string;
    /** Only methods that accept this ISO 4217 currency (`unknown_currency` if it is none); shows its bounds only. */
    currency?: string;
};
export type ListPaymentMethodsBody = undefined;
export type ListPaymentMethodsResponse = PaymentMethodList;
/**
 * Register a webhook endpoint
 *
 * Registers a URL that receives signed events (Standard Webhooks). The answer carries the signing secret `whsec_…` — the only time it is shown. At most 20 endpoints per merchant and environment (else 422 `webhook_endpoint_limit_reached`).
 */
export type CreateWebhookEndpointParams = Record<string, never>;
export type CreateWebhookEndpointQuery = Record<string, never>;
export type CreateWebhookEndpointBody = {
    /** Where events are POSTed. An absolute http(s) URL (`invalid_url`, `unsupported_scheme`); https in production (`https_required`); no credentials (`credentials_in_url`), default ports only (`port_not_allowed`), public addresses only (`private_address`). */
    url: string;
    description?: string | null;
    /** Event types to receive (see docs/webhook-events.md; a type that does not exist is `unknown_event_type`), or `["*"]` (the default) for every type, including future ones; `"*"` must be sent alone (`invalid_value`). */
    enabled_events?: string[];
    status?: 'enabled' | 'disabled';
};
export type CreateWebhookEndpointResponse = WebhookEndpointWithSecret;
/**
 * List webhook endpoints
 *
 * Every endpoint of this merchant in this environment (at most 20), oldest first.
 */
export type ListWebhookEndpointsParams = Record<string, never>;
export type ListWebhookEndpointsQuery = Record<string, never>;
export type ListWebhookEndpointsBody = undefined;
export type ListWebhookEndpointsResponse = {
    object: 'list';
    data: WebhookEndpoint[];
    /** More items follow: pass the last id as `starting_after`. */
    has_more: boolean;
};
/**
 * Retrieve a webhook endpoint
 *
 * The secret is never part of it (it was shown once, at creation or rotation).
 */
export type GetWebhookEndpointParams = {
    /** `we_…` */
    id: string;
};
export type GetWebhookEndpointQuery = Record<string, never>;
export type GetWebhookEndpointBody = undefined;
export type GetWebhookEndpointResponse = WebhookEndpoint;
/**
 * Delete a webhook endpoint
 *
 * Stops all deliveries to it at once (pending ones are canceled). Its delivery history stays in the event log.
 */
export type DeleteWebhookEndpointParams = {
    /** `we_…` */
    id: string;
};
export type DeleteWebhookEndpointQuery = Record<string, never>;
export type DeleteWebhookEndpointBody = undefined;
export type DeleteWebhookEndpointResponse = {
    id: string;
    object: 'webhook_endpoint';
    deleted: true;
};
/**
 * Change a webhook endpoint
 *
 * Changes only the fields sent. Re-enable a disabled endpoint with `{"status": "enabled"}`, then redeliver what it missed (`POST /event/{id}/redeliver`).
 */
export type UpdateWebhookEndpointParams = {
    /** `we_…` */
    id: string;
};
export type UpdateWebhookEndpointQuery = Record<string, never>;
export type UpdateWebhookEndpointBody = {
    /** Where events are POSTed. An absolute http(s) URL (`invalid_url`, `unsupported_scheme`); https in production (`https_required`); no credentials (`credentials_in_url`), default ports only (`port_not_allowed`), public addresses only (`private_address`). */
    url?: string;
    description?: string | null;
    /** Event types to receive (see docs/webhook-events.md; a type that does not exist is `unknown_event_type`), or `["*"]` (the default) for every type, including future ones; `"*"` must be sent alone (`invalid_value`). */
    enabled_events?: string[];
    /** Disabling cancels pending deliveries; enabling clears `disabled_reason` and `failing_since`. */
    status?: 'enabled' | 'disabled';
};
export type UpdateWebhookEndpointResponse = WebhookEndpoint;
/**
 * Rotate an endpoint's signing secret
 *
 * Generates a new secret and returns it (once). Until `previous_secret_expires_at`, every request carries two signatures, one per secret, so receivers can switch without losing events. The body is optional.
 */
export type RotateWebhookEndpointSecretParams = {
    /** `we_…` */
    id: string;
};
export type RotateWebhookEndpointSecretQuery = Record<string, never>;
export type RotateWebhookEndpointSecretBody = {
    /** How long requests are still signed with the old secret too (default 86400, i.e. 24 h; 0 retires it at once). */
    expire_previous_in_seconds?: number;
};
export type RotateWebhookEndpointSecretResponse = WebhookEndpointWithSecret;
/**
 * List events
 *
 * Newest first. Events are kept for 90 days (EVENT_RETENTION_DAYS).
 */
export type ListEventsParams = Record<string, never>;
export type ListEventsQuery = {
    limit?: number;
    /** An event id: the page starts after it. An id that is not one of your events in this environment is a 400 `unknown_cursor`. */
    starting_after?: string;
    /** An event type (`payment.succeeded`) or a group (`payment.*`). */
    type?: string;
    /** Only events about this object (`pay_…`, `ref_…`, …). */
    object_id?: string;
};
export type ListEventsBody = undefined;
export type ListEventsResponse = {
    object: 'list';
    data: Event[];
    /** More items follow: pass the last id as `starting_after`. */
    has_more: boolean;
};
/**
 * Retrieve an event
 *
 * Exactly the JSON that webhook deliveries of this event carry as their body.
 */
export type GetEventParams = {
    /** `evt_…` */
    id: string;
};
export type GetEventQuery = Record<string, never>;
export type GetEventBody = undefined;
export type GetEventResponse = Event;
/**
 * Deliveries of an event and their attempts
 *
 * One delivery per target (endpoint or callback_url) and per redelivery, oldest first, each with every HTTP attempt: status, duration, the start of the answer. A delivery whose attempts are exhausted has `status: failed`, `failure_reason: exhausted`.
 */
export type ListEventDeliveriesParams = {
    /** `evt_…` */
    id: string;
};
export type ListEventDeliveriesQuery = Record<string, never>;
export type ListEventDeliveriesBody = undefined;
export type ListEventDeliveriesResponse = {
    object: 'list';
    data: WebhookDelivery[];
    /** More items follow: pass the last id as `starting_after`. */
    has_more: boolean;
};
/**
 * Send an event again
 *
 * Schedules new deliveries of the event at once, with a fresh retry schedule: to one endpoint (`endpoint_id`), to the payment’s callback_url (`callback_url: true`), or (empty body) to every enabled endpoint subscribed to its type and the callback_url. The `webhook-id` stays the event id. `endpoint_id` and `callback_url` together are `invalid_value`; `callback_url: true` for an event whose payment has none is `no_callback_url`; a disabled endpoint is 409 `webhook_endpoint_disabled`.
 */
export type RedeliverEventParams = {
    /** `evt_…` */
    id: string;
};
export type RedeliverEventQuery = Record<string, never>;
export type RedeliverEventBody = {
    /** Only to this endpoint (even if it does not subscribe to the type). */
    endpoint_id?: string;
    /** `true`: only to the payment's callback_url. */
    callback_url?: boolean;
};
export type RedeliverEventResponse = {
    object: 'list';
    data: WebhookDelivery[];
    /** More items follow: pass the last id as `starting_after`. */
    has_more: boolean;
};
/**
 * Read the callback secret (once)
 *
 * The secret that signs requests to payments' `callback_url` in this environment. The first read shows it; later reads show `secret: null`. Lost it? Rotate it.
 */
export type GetCallbackSecretParams = Record<string, never>;
export type GetCallbackSecretQuery = Record<string, never>;
export type GetCallbackSecretBody = undefined;
export type GetCallbackSecretResponse = CallbackSecret;
/**
 * Rotate the callback secret
 *
 * Generates a new callback secret and shows it (once). Until `previous_secret_expires_at`, callbacks carry a signature with each secret. The body is optional.
 */
export type RotateCallbackSecretParams = Record<string, never>;
export type RotateCallbackSecretQuery = Record<string, never>;
export type RotateCallbackSecretBody = {
    /** How long requests are still signed with the old secret too (default 86400, i.e. 24 h; 0 retires it at once). */
    expire_previous_in_seconds?: number;
};
export type RotateCallbackSecretResponse = CallbackSecret;
/**
 * List settlements
 *
 * Your settlement batches in the environment of the API key, newest first, one page at a time (the same cursor rules as GET /payment, decision 0010).
 */
export type ListSettlementsParams = Record<string, never>;
export type ListSettlementsQuery = {
    /** Page size, 1-100 (default 10). */
    limit?: number;
    /** A settlement id (`next_cursor` of the previous page): the page starts right after it. An id that is not one of your settlements in this environment is a 400 `unknown_cursor`. */
    starting_after?: string;
    /** Only batches of this connector. */
    connector?: string;
};
export type ListSettlementsBody = undefined;
export type ListSettlementsResponse = SettlementList;
/**
 * Retrieve a settlement
 *
 * One settlement batch with its payments: gross, the provider's fees and the net it paid out, per payment and in total (docs/money.md). Another merchant's or environment's id answers 404 like an unknown one.
 */
export type GetSettlementParams = {
    /** `stl_…` */
    id: string;
};
export type GetSettlementQuery = Record<string, never>;
export type GetSettlementBody = undefined;
export type GetSettlementResponse = Settlement;
/**
 * List settlement exceptions
 *
 * Settlement report lines for your payments that Tributary did not apply (docs/money.md "Settlement exceptions"), in the environment of the API key, newest first, one page at a time (the cursor rules of GET /payment, decision 0010).
 */
export type ListSettlementExceptionsParams = Record<string, never>;
export type ListSettlementExceptionsQuery = {
    /** Page size, 1-100 (default 10). */
    limit?: number;
    /** A settlement exception id (`next_cursor` of the previous page): the page starts right after it. An id that is not one of your settlement exceptions in this environment is a 400 `unknown_cursor`. */
    starting_after?: string;
    /** Only open or only resolved exceptions. */
    status?: 'open' | 'resolved';
    /** Only this kind. */
    kind?: 'unknown_reference' | 'amount_mismatch' | 'currency_mismatch' | 'not_succeeded' | 'already_settled';
    /** Only this connector. */
    connector?: string;
};
export type ListSettlementExceptionsBody = undefined;
export type ListSettlementExceptionsResponse = SettlementExceptionList;
/**
 * Retrieve a settlement exception
 *
 * A settlement report line the provider sent for one of your payments that Tributary did not apply, and whether an operator resolved it (docs/money.md). Another merchant's or environment's id answers 404 like an unknown one.
 */
export type GetSettlementExceptionParams = {
    /** `stx_…` */
    id: string;
};
export type GetSettlementExceptionQuery = Record<string, never>;
export type GetSettlementExceptionBody = undefined;
export type GetSettlementExceptionResponse = SettlementException;
/**
 * Reconcile a provider's settlement report
 *
 * Fetches the connector's settlement report for [from, to), keeps the lines that are yours in this environment, and compares them with the payments Tributary recorded as settled: each line is `matched` or a discrepancy (`missing_in_ours`, `missing_in_report`, `amount_mismatch`, `currency_mismatch`, `duplicate`, `unknown_reference`, `late`; docs/money.md). Emits `reconciliation.completed`, and `reconciliation.discrepancy` when any line differs. 201 for a new reconciliation; the same connector, window and inputs (report lines and our records) answer the existing one with 200 and change nothing. Send an `Idempotency-Key` to make retries safe.
 */
export type CreateReconciliationParams = Record<string, never>;
export type CreateReconciliationQuery = Record<string, never>;
export type CreateReconciliationBody = {
    /** The connector whose settlement report to compare, e.g. `sandbox_bank` (another name is `unknown_connector`). */
    connector: string;
    /** Start of the window (inclusive), RFC 3339, by the provider settlement time. */
    from: string;
    /** End of the window (exclusive): after `from` (else `not_after_from`) and at most 31 days after it (else `window_too_long`). */
    to: string;
};
export type CreateReconciliationResponse = Reconciliation;
/**
 * Retrieve a reconciliation
 *
 * The summary counts and every line (matched or the discrepancy kind, with the provider's and Tributary's side). `GET /reconciliation/{id}/lines.csv` exports the lines as CSV.
 */
export type GetReconciliationParams = {
    /** `rec_…` */
    id: string;
};
export type GetReconciliationQuery = Record<string, never>;
export type GetReconciliationBody = undefined;
export type GetReconciliationResponse = Reconciliation;
/**
 * Export a reconciliation's lines as CSV
 *
 * RFC 4180 CSV (UTF-8, CRLF, a header row): one row per line with `result`, the payment, the provider reference, and both sides. Amounts are exact decimal strings in major units. Text that a spreadsheet would run as a formula is prefixed with `'`.
 */
export type ExportReconciliationLinesParams = {
    /** `rec_…` */
    id: string;
};
export type ExportReconciliationLinesQuery = Record<string, never>;
export type ExportReconciliationLinesBody = undefined;
export type ExportReconciliationLinesResponse = string;
/**
 * List a reconciliation's lines
 *
 * Pages through every line in order, optionally only one `result` (e.g. `amount_mismatch`). Pass `next_cursor` as `starting_after` for the next page.
 */
export type ListReconciliationLinesParams = {
    /** `rec_…` */
    id: string;
};
export type ListReconciliationLinesQuery = {
    /** Page size, 1-100 (default 10). */
    limit?: number;
    /** A line position (`next_cursor` of the previous page): the page starts right after it. */
    starting_after?: string;
    /** Only lines with this result. */
    result?: 'matched' | 'missing_in_ours' | 'missing_in_report' | 'amount_mismatch' | 'currency_mismatch' | 'duplicate' | 'unknown_reference' | 'late';
};
export type ListReconciliationLinesBody = undefined;
export type ListReconciliationLinesResponse = ReconciliationLineList;
/**
 * Refund all or part of a payment
 *
 * Refunds a `succeeded` payment, all of it (no `amount`) or part of it; several refunds per payment are allowed while their total (succeeded and pending ones) stays within what the payer paid (else 422 `refund_exceeds_captured`). Another state answers 409 `payment_state_conflict`; a channel without refunds (counter) 422 `refund_not_supported`. Answers 201 with the refund: `pending` while the provider works on it (it ends with `refund.succeeded` or `refund.failed`), or already `succeeded`/`failed`. Send an `Idempotency-Key` to make retries safe.
 */
export type RefundPaymentParams = {
    /** `pay_…` */
    id: string;
};
export type RefundPaymentQuery = Record<string, never>;
export type RefundPaymentBody = {
    /** What to refund, in major units as a JSON number, parsed exactly like the create amount: at most the currency’s minor-unit digits (`amount_too_precise`) and 15 significant digits in minor units (`amount_too_large`). Absent: everything of the payment that is still refundable. */
    amount?: number;
    /** Why the money goes back (stored and shown). */
    reason?: 'requested_by_customer' | 'duplicate' | 'fraudulent' | null;
    /** What to give back: `payment` (money the payment captured; the default for a `succeeded` payment) or `late_payment` (a late payment the merchant did not get, `late_payment.resolution` `refund_required`; the default for any other payment). */
    source?: 'payment' | 'late_payment';
};
export type RefundPaymentResponse = Refund;
/**
 * Retrieve a refund
 *
 * Returns the refund with its current status. Another merchant's or the other environment's id answers 404, exactly like an unknown id.
 */
export type GetRefundParams = {
    /** `ref_…` */
    id: string;
};
export type GetRefundQuery = Record<string, never>;
export type GetRefundBody = undefined;
export type GetRefundResponse = Refund;
/**
 * Your balances in this environment, from the ledger
 *
 * Per currency: `pending` (paid, not settled), `available` (settled, payable to you) and `refunds_in_flight` (held for refunds the provider has not finished), and `owed_to_payers` (late payments you did not get, held until they are refunded to their payers), in major units. With `verify=true` the ledger is also re-derived from every posting and checked (each entry balances, everything sums to zero, cached balances equal their postings); `verification.status` is `mismatch` with the violations if not. An operator check: slower, never needed for normal use.
 */
export type GetBalanceParams = Record<string, never>;
export type GetBalanceQuery = {
    /** Re-derive and check the ledger as well. */
    verify?: boolean;
};
export type GetBalanceBody = undefined;
export type GetBalanceResponse = Balance;
/**
 * Cancel a pending payment
 *
 * Closes the payment at the provider (closes the virtual account, voids the payment code or the e-wallet charge), then marks it `canceled` and emits `payment.canceled`. Only a `pending` payment can be canceled; any other state answers 409 `payment_state_conflict` (also when the payer paid just before). If the provider does not confirm, the payment stays pending and the answer is 503 with `Retry-After`. The body is optional. Send an `Idempotency-Key` to make retries safe.
 */
export type CancelPaymentParams = {
    /** `pay_…` */
    id: string;
};
export type CancelPaymentQuery = Record<string, never>;
export type CancelPaymentBody = {
    /** Why the payment is canceled (stored and shown on the payment). */
    cancellation_reason?: 'requested_by_customer' | 'duplicate' | 'fraudulent' | 'abandoned' | null;
};
export type CancelPaymentResponse = Payment;
/**
 * Erase a payment's payer data
 *
 * For a payer's erasure request: erases the payer's personal data of a final payment — `email` becomes null, the e-mail address is replaced by `[erased]` wherever it appears in `description` and `metadata` values — in the payment, in its stored events (`GET /event` shows them erased), in stored provider notifications and in the stored answers of your webhook endpoints. When a checkout made the payment, the checkout and all its payments are erased together (one payer). Amounts, references, statuses, refunds and the ledger do not change; `payer_data_erased_at` says when it happened. Webhooks already delivered are not recalled. Only a final payment (`succeeded`, `failed`, `expired`, `canceled`, `reversed`) of a closed checkout can be erased: a pending one answers 409 `payment_state_conflict` (cancel it first). Idempotent: erasing again answers the erased payment unchanged. The body is optional and empty. See docs/payer-data.md.
 */
export type ErasePayerDataParams = {
    /** `pay_…` */
    id: string;
};
export type ErasePayerDataQuery = Record<string, never>;
export type ErasePayerDataBody = Record<string, never>;
export type ErasePayerDataResponse = Payment;
/**
 * Create a checkout
 *
 * Creates a checkout: the payer chooses how to pay on its hosted page (`url`), or your own UI calls `POST /checkout/{id}/select` with the `client_secret` (shown only in this answer). Send an `Idempotency-Key` header so that retries never create a second checkout. Refused like `POST /payment/create` when no channel can take the amount: 422 `currency_not_supported`, `amount_out_of_range` or `channel_unavailable`; a `reference_no` of a live payment or open checkout is 409 `reference_no_conflict`.
 */
export type CreateCheckoutParams = Record<string, never>;
export type CreateCheckoutQuery = Record<string, never>;
export type CreateCheckoutBody = {
    /** Amount in major units as a JSON number (not a string), with at most the currency’s ISO 4217 minor-unit digits: `150000.00` IDR, `10.5` USD, `5000` VND (more digits is `amount_too_precise`). At most 15 significant digits in minor units: 999999999999999 VND, 9999999999999.99 IDR (more is `amount_too_large`). */
    amount: number;
    /** An active ISO 4217 code in upper case (an inactive or unknown code is `unknown_currency`). */
    currency: string;
    /** Your reference for the payment (printable ASCII, no leading or trailing space). Unique among your live (processing, pending, succeeded) payments. */
    reference_no: string;
    /** Free text, without the NUL character (`invalid_character`). */
    description?: string | null;
    /** The payer's e-mail address; its domain must contain a dot (`user@example.com`, not `user@localhost`). */
    email?: string | null;
    /** Up to 50 string values (at most 500 characters, without the NUL character: `invalid_character`) under keys of 1-40 letters, digits and _ . : - (another key is `invalid_metadata_key`). */
    metadata?: Record<string, string> | null;
    /** Receives this payment's events, signed with the merchant callback secret. An absolute http(s) URL (`invalid_url`, `unsupported_scheme`); https in production (`https_required`); no credentials (`credentials_in_url`), default ports only (`port_not_allowed`), public addresses only (`private_address`). */
    callback_url?: string | null;
    /** The channels the payer may choose among, in this order. Absent: every channel that can serve the amount. */
    channels?: ('bank' | 'ewallet' | 'counter')[] | null;
    /** Where the hosted page sends the payer after a successful payment. */
    success_url?: string | null;
    /** Where the hosted page sends a payer who gives up. */
    cancel_url?: string | null;
    /** Seconds until the checkout expires (default 86400). */
    expires_in?: number;
};
export type CreateCheckoutResponse = Checkout;
/** Retrieve a checkout */
export type GetCheckoutParams = {
    /** `cs_…` */
    id: string;
};
export type GetCheckoutQuery = Record<string, never>;
export type GetCheckoutBody = undefined;
export type GetCheckoutResponse = Checkout;
/**
 * List checkouts
 *
 * Your checkouts in the environment of the API key, newest first, one page at a time (like `GET /payment`).
 */
export type ListCheckoutsParams = Record<string, never>;
export type ListCheckoutsQuery = {
    /** Page size, 1-100 (default 10). */
    limit?: number;
    /** A `next_cursor`: the id of the last checkout of the previous page. An id that is not one of your checkouts in this environment is a 400 `unknown_cursor`. */
    starting_after?: string;
    status?: 'open' | 'completed' | 'expired';
};
export type ListCheckoutsBody = undefined;
export type ListCheckoutsResponse = CheckoutList;
/**
 * Expire a checkout
 *
 * Ends an open checkout now (`checkout.expired`); its pending payment is canceled at the provider. Expiring an expired checkout answers it unchanged; a completed one is 409 `checkout_not_open`.
 */
export type ExpireCheckoutParams = {
    /** `cs_…` */
    id: string;
};
export type ExpireCheckoutQuery = Record<string, never>;
export type ExpireCheckoutBody = Record<string, never>;
export type ExpireCheckoutResponse = Checkout;
/**
 * Choose how to pay
 *
 * Creates the payment for the chosen channel (through the same path as `POST /payment/create`: routing, failover, idempotent) after canceling the previous pending one, and answers the checkout with `payment` expanded (its instructions). Authorised by `client_secret` in the body, not by an API key (a wrong one is 401 `client_secret_invalid`). A completed or expired checkout is 409 `checkout_not_open`, a selection already running 409 `checkout_busy`; a channel the checkout does not offer 422 `channel_not_offered`; the payment’s own refusals are those of `POST /payment/create` (409 `reference_no_conflict` when a live payment took the checkout’s `reference_no`; 422 `currency_not_supported`, `amount_out_of_range`, `channel_unavailable`; 503 `provider_unavailable`).
 */
export type SelectCheckoutMethodParams = {
    /** `cs_…` */
    id: string;
};
export type SelectCheckoutMethodQuery = Record<string, never>;
export type SelectCheckoutMethodBody = {
    /** The checkout's client_secret (from its create answer). */
    client_secret: string;
    /** One of the checkout's `channels`. */
    channel: 'bank' | 'ewallet' | 'counter';
    /** A bank, wallet or outlet code; routing picks one when absent. */
    instrument?: string | null;
};
export type SelectCheckoutMethodResponse = Checkout;
/**
 * Create a payment link
 *
 * Creates a reusable payment link (`url`): a fixed `amount`, or `amount_min` and `amount_max` between which the payer enters the amount; optionally at most `max_uses` payments and an `expires_at`. Each visit (the payer pressing Pay, `POST /payment_link/{id}/checkout`) creates a checkout. Send an `Idempotency-Key` header so that retries never create a second link. Rules the schema cannot state, with their issues: exactly one of `amount` or both `amount_min` and `amount_max` (`exclusive_fields`; a missing one is `required`), `amount_min` ≤ `amount_max` (`bounds_inverted`), amounts with at most the currency’s minor-unit digits (`amount_too_precise`) in an active currency (`unknown_currency`), `expires_at` in the future (`not_in_future`), payer URLs http(s) (`invalid_url`); the amount (or both bounds) must be one the link’s channels can serve, in a currency one of them takes: otherwise 422 `currency_not_supported`, `channel_unavailable` or `amount_out_of_range`.
 */
export type CreatePaymentLinkParams = Record<string, never>;
export type CreatePaymentLinkQuery = Record<string, never>;
export type CreatePaymentLinkBody = {
    /** A fixed amount. Send either `amount`, or `amount_min` and `amount_max` (the payer enters the amount). Major units, as a JSON number (not a string). */
    amount?: number;
    /** The least a payer may enter (with `amount_max`, instead of `amount`). Major units, as a JSON number (not a string). */
    amount_min?: number;
    /** The most a payer may enter (with `amount_min`, instead of `amount`). Major units, as a JSON number (not a string). */
    amount_max?: number;
    /** An active ISO 4217 code in upper case (an inactive or unknown code is `unknown_currency`). */
    currency: string;
    /** Free text, without the NUL character (`invalid_character`). */
    description?: string | null;
    /** The channels each visit's checkout offers, in this order. Absent: every channel that can serve the amount at the visit. */
    channels?: ('bank' | 'ewallet' | 'counter')[] | null;
    /** Where the hosted page sends the payer after a successful payment. */
    success_url?: string | null;
    /** Where the hosted page sends a payer who gives up. */
    cancel_url?: string | null;
    /** At most this many payments through the link. A visit holds a use while its checkout is open; an expired checkout frees it. Absent: unlimited. */
    max_uses?: number | null;
    /** After this instant the link takes no more visits (RFC 3339, in the future). Absent: never. */
    expires_at?: string | null;
    /** Seconds each visit's checkout stays open (default 3600). */
    checkout_expires_in?: number;
};
export type CreatePaymentLinkResponse = PaymentLink;
/**
 * Retrieve a payment link
 *
 * The link with its checkouts by status and what its completed checkouts collected.
 */
export type GetPaymentLinkParams = {
    /** `plink_…` */
    id: string;
};
export type GetPaymentLinkQuery = Record<string, never>;
export type GetPaymentLinkBody = undefined;
export type GetPaymentLinkResponse = PaymentLink;
/**
 * List payment links
 *
 * Your payment links in the environment of the API key, newest first, one page at a time (like `GET /payment`).
 */
export type ListPaymentLinksParams = Record<string, never>;
export type ListPaymentLinksQuery = {
    /** Page size, 1-100 (default 10). */
    limit?: number;
    /** A `next_cursor`: the id of the last payment link of the previous page. An id that is not one of your payment links in this environment is a 400 `unknown_cursor`. */
    starting_after?: string;
};
export type ListPaymentLinksBody = undefined;
export type ListPaymentLinksResponse = PaymentLinkList;
/**
 * Deactivate a payment link
 *
 * The link takes no more visits (409 `payment_link_inactive`); this is final. Checkouts it already made stay payable until they complete or expire. Deactivating an inactive link answers it unchanged.
 */
export type DeactivatePaymentLinkParams = {
    /** `plink_…` */
    id: string;
};
export type DeactivatePaymentLinkQuery = Record<string, never>;
export type DeactivatePaymentLinkBody = Record<string, never>;
export type DeactivatePaymentLinkResponse = PaymentLink;
/**
 * Start a checkout from a payment link
 *
 * A visit: creates a checkout for the link's amount (or the payer's `amount`, within the link's bounds) and answers it with its `client_secret` and `url`. Not authorised by an API key: the link id is public. Each call is a new visit and holds one of the link's uses while its checkout is open; refused with 409 `payment_link_inactive`, `payment_link_expired` or `payment_link_used_up`.
 */
export type StartPaymentLinkCheckoutParams = {
    /** `plink_…` */
    id: string;
};
export type StartPaymentLinkCheckoutQuery = Record<string, never>;
export type StartPaymentLinkCheckoutBody = {
    /** The amount the payer chose, within the link's bounds; only for a link without a fixed amount. Major units, as a JSON number (not a string). */
    amount?: number;
};
export type StartPaymentLinkCheckoutResponse = Checkout;
/**
 * List the audit log
 *
 * Who changed what (docs/audit-log.md): one append-only entry per change made with a key, by a person in the dashboard or by the operator, in the environment of the API key and the merchant-wide ones, newest first, one page at a time (the cursor rules of GET /payment). Refusals: 400 `invalid_request` with `unknown_cursor` (a `starting_after` that is not one of the entries this key can see) or `invalid_format` (an instant that is not RFC 3339).
 */
export type ListAuditLogParams = Record<string, never>;
export type ListAuditLogQuery = {
    /** Page size, 1-100 (default 10). */
    limit?: number;
    /** An audit entry id (`next_cursor` of the previous page): the page starts right after it. An id that is not one of the entries this key can see is a 400 `unknown_cursor`. */
    starting_after?: string;
    /** Only this action. */
    action?: 'user.signed_in' | 'user.sign_in_failed' | 'user.signed_out' | 'user.two_factor_enrolled' | 'user.recovery_code_used' | 'user.password_changed' | 'member.invited' | 'member.invitation_revoked' | 'member.joined' | 'member.role_changed' | 'member.removed' | 'member.ownership_transferred' | 'api_key.created' | 'api_key.rolled' | 'api_key.revoked' | 'refund.created' | 'payment.canceled' | 'payment.payer_data_erased' | 'event.redelivered' | 'webhook_endpoint.created' | 'webhook_endpoint.updated' | 'webhook_endpoint.deleted' | 'webhook_endpoint.secret_rotated' | 'callback_secret.rotated' | 'merchant.settings_updated' | 'reconciliation.created' | 'settlement_exception.resolved' | 'checkout.expired' | 'payment_link.created' | 'payment_link.deactivated';
    /** Only what this key (`key_…`) or person (`usr_…`) did. */
    actor_id?: string;
    /** Only entries about this object (`pay_…`, `we_…`, …). */
    object_id?: string;
    /** At or after this instant (RFC 3339; encode `+` as `%2B`). */
    occurred_gte?: string;
    /** At or before this instant (RFC 3339). */
    occurred_lte?: string;
};
export type ListAuditLogBody = undefined;
export type ListAuditLogResponse = AuditEntryList;
/**
 * Simulate what the payer or the provider does (sandbox only)
 *
 * Asks the sandbox provider to make it happen. The provider then notifies Tributary with a signed notification, exactly as a real provider does, and the payment changes when that notification is processed (within a moment in the embedded default). Never writes the payment directly. Production keys get 404. An outcome the payment’s state does not allow (failing a succeeded payment, settling an unpaid one) is 409 `payment_state_conflict`. See docs/sandbox.md for every outcome and the magic amounts.
 */
export type SimulatePaymentParams = {
    /** `pay_…` */
    id: string;
};
export type SimulatePaymentQuery = Record<string, never>;
export type SimulatePaymentBody = {
    /** `succeeded`: the payer pays (also after expiry or cancel: a late payment). `failed`, `expired`: the provider ends the charge. `reversed`: the provider takes a succeeded payment back. `settled`: the provider settles a succeeded payment now and Tributary ingests its settlement report at once (the answer names the settlement). */
    outcome: 'succeeded' | 'failed' | 'expired' | 'reversed' | 'settled';
    /** With `succeeded` only (with another outcome it is `not_allowed`): what the payer pays, in major units, parsed exactly like create (`amount_too_precise`, `amount_too_large`). Less than the amount is a partial payment (bank only), more an over-payment (bank only); an amount the provider refuses is `amount_not_accepted`. */
    amount?: number;
};
export type SimulatePaymentResponse = {
    object: 'sandbox_simulation';
    payment_id: string;
    outcome: 'succeeded' | 'failed' | 'expired' | 'reversed' | 'settled';
    amount: number | null;
    currency: string;
    connector: string;
    provider_reference: string;
    /** The provider's status of the charge after the simulation. */
    provider_status: string;
    notification: string;
    /** `settled` only: the settlement that paid the payment out. */
    settlement_id?: string | null;
};
/** How each operation is called: the runtime builds every request from this table. */
export declare const OPERATIONS: {
    readonly createPayment: {
        readonly method: "POST";
        readonly path: "/payment/create";
        readonly pathParams: readonly [];
        readonly idempotencyKey: true;
        readonly body: true;
        readonly response: "json";
    };
    readonly getPayment: {
        readonly method: "GET";
        readonly path: "/payment/{id}";
        readonly pathParams: readonly ["id"];
        readonly idempotencyKey: false;
        readonly body: false;
        readonly response: "json";
    };
    readonly listPayments: {
        readonly method: "GET";
        readonly path: "/payment";
        readonly pathParams: readonly [];
        readonly idempotencyKey: false;
        readonly body: false;
        readonly response: "json";
    };
    readonly listPaymentMethods: {
        readonly method: "GET";
        readonly path: "/payment_method";
        readonly pathParams: readonly [];
        readonly idempotencyKey: false;
        readonly body: false;
        readonly response: "json";
    };
    readonly createWebhookEndpoint: {
        readonly method: "POST";
        readonly path: "/webhook_endpoint/create";
        readonly pathParams: readonly [];
        readonly idempotencyKey: false;
        readonly body: true;
        readonly response: "json";
    };
    readonly listWebhookEndpoints: {
        readonly method: "GET";
        readonly path: "/webhook_endpoint";
        readonly pathParams: readonly [];
        readonly idempotencyKey: false;
        readonly body: false;
        readonly response: "json";
    };
    readonly getWebhookEndpoint: {
        readonly method: "GET";
        readonly path: "/webhook_endpoint/{id}";
        readonly pathParams: readonly ["id"];
        readonly idempotencyKey: false;
        readonly body: false;
        readonly response: "json";
    };
    readonly deleteWebhookEndpoint: {
        readonly method: "DELETE";
        readonly path: "/webhook_endpoint/{id}";
        readonly pathParams: readonly ["id"];
        readonly idempotencyKey: false;
        readonly body: false;
        readonly response: "json";
    };
    readonly updateWebhookEndpoint: {
        readonly method: "POST";
        readonly path: "/webhook_endpoint/{id}/update";
        readonly pathParams: readonly ["id"];
        readonly idempotencyKey: false;
        readonly body: true;
        readonly response: "json";
    };
    readonly rotateWebhookEndpointSecret: {
        readonly method: "POST";
        readonly path: "/webhook_endpoint/{id}/rotate_secret";
        readonly pathParams: readonly ["id"];
        readonly idempotencyKey: false;
        readonly body: true;
        readonly response: "json";
    };
    readonly listEvents: {
        readonly method: "GET";
        readonly path: "/event";
        readonly pathParams: readonly [];
        readonly idempotencyKey: false;
        readonly body: false;
        readonly response: "json";
    };
    readonly getEvent: {
        readonly method: "GET";
        readonly path: "/event/{id}";
        readonly pathParams: readonly ["id"];
        readonly idempotencyKey: false;
        readonly body: false;
        readonly response: "json";
    };
    readonly listEventDeliveries: {
        readonly method: "GET";
        readonly path: "/event/{id}/deliveries";
        readonly pathParams: readonly ["id"];
        readonly idempotencyKey: false;
        readonly body: false;
        readonly response: "json";
    };
    readonly redeliverEvent: {
        readonly method: "POST";
        readonly path: "/event/{id}/redeliver";
        readonly pathParams: readonly ["id"];
        readonly idempotencyKey: false;
        readonly body: true;
        readonly response: "json";
    };
    readonly getCallbackSecret: {
        readonly method: "GET";
        readonly path: "/callback_secret";
        readonly pathParams: readonly [];
        readonly idempotencyKey: false;
        readonly body: false;
        readonly response: "json";
    };
    readonly rotateCallbackSecret: {
        readonly method: "POST";
        readonly path: "/callback_secret/rotate";
        readonly pathParams: readonly [];
        readonly idempotencyKey: false;
        readonly body: true;
        readonly response: "json";
    };
    readonly listSettlements: {
        readonly method: "GET";
        readonly path: "/settlement";
        readonly pathParams: readonly [];
        readonly idempotencyKey: false;
        readonly body: false;
        readonly response: "json";
    };
    readonly getSettlement: {
        readonly method: "GET";
        readonly path: "/settlement/{id}";
        readonly pathParams: readonly ["id"];
        readonly idempotencyKey: false;
        readonly body: false;
        readonly response: "json";
    };
    readonly listSettlementExceptions: {
        readonly method: "GET";
        readonly path: "/settlement_exception";
        readonly pathParams: readonly [];
        readonly idempotencyKey: false;
        readonly body: false;
        readonly response: "json";
    };
    readonly getSettlementException: {
        readonly method: "GET";
        readonly path: "/settlement_exception/{id}";
        readonly pathParams: readonly ["id"];
        readonly idempotencyKey: false;
        readonly body: false;
        readonly response: "json";
    };
    readonly createReconciliation: {
        readonly method: "POST";
        readonly path: "/reconciliation/create";
        readonly pathParams: readonly [];
        readonly idempotencyKey: true;
        readonly body: true;
        readonly response: "json";
    };
    readonly getReconciliation: {
        readonly method: "GET";
        readonly path: "/reconciliation/{id}";
        readonly pathParams: readonly ["id"];
        readonly idempotencyKey: false;
        readonly body: false;
        readonly response: "json";
    };
    readonly exportReconciliationLines: {
        readonly method: "GET";
        readonly path: "/reconciliation/{id}/lines.csv";
        readonly pathParams: readonly ["id"];
        readonly idempotencyKey: false;
        readonly body: false;
        readonly response: "text";
    };
    readonly listReconciliationLines: {
        readonly method: "GET";
        readonly path: "/reconciliation/{id}/lines";
        readonly pathParams: readonly ["id"];
        readonly idempotencyKey: false;
        readonly body: false;
        readonly response: "json";
    };
    readonly refundPayment: {
        readonly method: "POST";
        readonly path: "/payment/{id}/refund";
        readonly pathParams: readonly ["id"];
        readonly idempotencyKey: true;
        readonly body: true;
        readonly response: "json";
    };
    readonly getRefund: {
        readonly method: "GET";
        readonly path: "/refund/{id}";
        readonly pathParams: readonly ["id"];
        readonly idempotencyKey: false;
        readonly body: false;
        readonly response: "json";
    };
    readonly getBalance: {
        readonly method: "GET";
        readonly path: "/balance";
        readonly pathParams: readonly [];
        readonly idempotencyKey: false;
        readonly body: false;
        readonly response: "json";
    };
    readonly cancelPayment: {
        readonly method: "POST";
        readonly path: "/payment/{id}/cancel";
        readonly pathParams: readonly ["id"];
        readonly idempotencyKey: true;
        readonly body: true;
        readonly response: "json";
    };
    readonly erasePayerData: {
        readonly method: "POST";
        readonly path: "/payment/{id}/erase_payer_data";
        readonly pathParams: readonly ["id"];
        readonly idempotencyKey: false;
        readonly body: true;
        readonly response: "json";
    };
    readonly createCheckout: {
        readonly method: "POST";
        readonly path: "/checkout/create";
        readonly pathParams: readonly [];
        readonly idempotencyKey: true;
        readonly body: true;
        readonly response: "json";
    };
    readonly getCheckout: {
        readonly method: "GET";
        readonly path: "/checkout/{id}";
        readonly pathParams: readonly ["id"];
        readonly idempotencyKey: false;
        readonly body: false;
        readonly response: "json";
    };
    readonly listCheckouts: {
        readonly method: "GET";
        readonly path: "/checkout";
        readonly pathParams: readonly [];
        readonly idempotencyKey: false;
        readonly body: false;
        readonly response: "json";
    };
    readonly expireCheckout: {
        readonly method: "POST";
        readonly path: "/checkout/{id}/expire";
        readonly pathParams: readonly ["id"];
        readonly idempotencyKey: false;
        readonly body: true;
        readonly response: "json";
    };
    readonly selectCheckoutMethod: {
        readonly method: "POST";
        readonly path: "/checkout/{id}/select";
        readonly pathParams: readonly ["id"];
        readonly idempotencyKey: false;
        readonly body: true;
        readonly response: "json";
    };
    readonly createPaymentLink: {
        readonly method: "POST";
        readonly path: "/payment_link/create";
        readonly pathParams: readonly [];
        readonly idempotencyKey: true;
        readonly body: true;
        readonly response: "json";
    };
    readonly getPaymentLink: {
        readonly method: "GET";
        readonly path: "/payment_link/{id}";
        readonly pathParams: readonly ["id"];
        readonly idempotencyKey: false;
        readonly body: false;
        readonly response: "json";
    };
    readonly listPaymentLinks: {
        readonly method: "GET";
        readonly path: "/payment_link";
        readonly pathParams: readonly [];
        readonly idempotencyKey: false;
        readonly body: false;
        readonly response: "json";
    };
    readonly deactivatePaymentLink: {
        readonly method: "POST";
        readonly path: "/payment_link/{id}/deactivate";
        readonly pathParams: readonly ["id"];
        readonly idempotencyKey: false;
        readonly body: true;
        readonly response: "json";
    };
    readonly startPaymentLinkCheckout: {
        readonly method: "POST";
        readonly path: "/payment_link/{id}/checkout";
        readonly pathParams: readonly ["id"];
        readonly idempotencyKey: false;
        readonly body: true;
        readonly response: "json";
    };
    readonly listAuditLog: {
        readonly method: "GET";
        readonly path: "/audit_log";
        readonly pathParams: readonly [];
        readonly idempotencyKey: false;
        readonly body: false;
        readonly response: "json";
    };
    readonly simulatePayment: {
        readonly method: "POST";
        readonly path: "/sandbox/payment/{id}/simulate";
        readonly pathParams: readonly ["id"];
        readonly idempotencyKey: false;
        readonly body: true;
        readonly response: "json";
    };
};
export type OperationId = keyof typeof OPERATIONS;
/** The path parameters, query, body and response of each operation. */
export interface OperationTypes {
    createPayment: {
        params: CreatePaymentParams;
        query: CreatePaymentQuery;
        body: CreatePaymentBody;
        response: CreatePaymentResponse;
    };
    getPayment: {
        params: GetPaymentParams;
        query: GetPaymentQuery;
        body: GetPaymentBody;
        response: GetPaymentResponse;
    };
    listPayments: {
        params: ListPaymentsParams;
        query: ListPaymentsQuery;
        body: ListPaymentsBody;
        response: ListPaymentsResponse;
    };
    listPaymentMethods: {
        params: ListPaymentMethodsParams;
        query: ListPaymentMethodsQuery;
        body: ListPaymentMethodsBody;
        response: ListPaymentMethodsResponse;
    };
    createWebhookEndpoint: {
        params: CreateWebhookEndpointParams;
        query: CreateWebhookEndpointQuery;
        body: CreateWebhookEndpointBody;
        response: CreateWebhookEndpointResponse;
    };
    listWebhookEndpoints: {
        params: ListWebhookEndpointsParams;
        query: ListWebhookEndpointsQuery;
        body: ListWebhookEndpointsBody;
        response: ListWebhookEndpointsResponse;
    };
    getWebhookEndpoint: {
        params: GetWebhookEndpointParams;
        query: GetWebhookEndpointQuery;
        body: GetWebhookEndpointBody;
        response: GetWebhookEndpointResponse;
    };
    deleteWebhookEndpoint: {
        params: DeleteWebhookEndpointParams;
        query: DeleteWebhookEndpointQuery;
        body: DeleteWebhookEndpointBody;
        response: DeleteWebhookEndpointResponse;
    };
    updateWebhookEndpoint: {
        params: UpdateWebhookEndpointParams;
        query: UpdateWebhookEndpointQuery;
        body: UpdateWebhookEndpointBody;
        response: UpdateWebhookEndpointResponse;
    };
    rotateWebhookEndpointSecret: {
        params: RotateWebhookEndpointSecretParams;
        query: RotateWebhookEndpointSecretQuery;
        body: RotateWebhookEndpointSecretBody;
        response: RotateWebhookEndpointSecretResponse;
    };
    listEvents: {
        params: ListEventsParams;
        query: ListEventsQuery;
        body: ListEventsBody;
        response: ListEventsResponse;
    };
    getEvent: {
        params: GetEventParams;
        query: GetEventQuery;
        body: GetEventBody;
        response: GetEventResponse;
    };
    listEventDeliveries: {
        params: ListEventDeliveriesParams;
        query: ListEventDeliveriesQuery;
        body: ListEventDeliveriesBody;
        response: ListEventDeliveriesResponse;
    };
    redeliverEvent: {
        params: RedeliverEventParams;
        query: RedeliverEventQuery;
        body: RedeliverEventBody;
        response: RedeliverEventResponse;
    };
    getCallbackSecret: {
        params: GetCallbackSecretParams;
        query: GetCallbackSecretQuery;
        body: GetCallbackSecretBody;
        response: GetCallbackSecretResponse;
    };
    rotateCallbackSecret: {
        params: RotateCallbackSecretParams;
        query: RotateCallbackSecretQuery;
        body: RotateCallbackSecretBody;
        response: RotateCallbackSecretResponse;
    };
    listSettlements: {
        params: ListSettlementsParams;
        query: ListSettlementsQuery;
        body: ListSettlementsBody;
        response: ListSettlementsResponse;
    };
    getSettlement: {
        params: GetSettlementParams;
        query: GetSettlementQuery;
        body: GetSettlementBody;
        response: GetSettlementResponse;
    };
    listSettlementExceptions: {
        params: ListSettlementExceptionsParams;
        query: ListSettlementExceptionsQuery;
        body: ListSettlementExceptionsBody;
        response: ListSettlementExceptionsResponse;
    };
    getSettlementException: {
        params: GetSettlementExceptionParams;
        query: GetSettlementExceptionQuery;
        body: GetSettlementExceptionBody;
        response: GetSettlementExceptionResponse;
    };
    createReconciliation: {
        params: CreateReconciliationParams;
        query: CreateReconciliationQuery;
        body: CreateReconciliationBody;
        response: CreateReconciliationResponse;
    };
    getReconciliation: {
        params: GetReconciliationParams;
        query: GetReconciliationQuery;
        body: GetReconciliationBody;
        response: GetReconciliationResponse;
    };
    exportReconciliationLines: {
        params: ExportReconciliationLinesParams;
        query: ExportReconciliationLinesQuery;
        body: ExportReconciliationLinesBody;
        response: ExportReconciliationLinesResponse;
    };
    listReconciliationLines: {
        params: ListReconciliationLinesParams;
        query: ListReconciliationLinesQuery;
        body: ListReconciliationLinesBody;
        response: ListReconciliationLinesResponse;
    };
    refundPayment: {
        params: RefundPaymentParams;
        query: RefundPaymentQuery;
        body: RefundPaymentBody;
        response: RefundPaymentResponse;
    };
    getRefund: {
        params: GetRefundParams;
        query: GetRefundQuery;
        body: GetRefundBody;
        response: GetRefundResponse;
    };
    getBalance: {
        params: GetBalanceParams;
        query: GetBalanceQuery;
        body: GetBalanceBody;
        response: GetBalanceResponse;
    };
    cancelPayment: {
        params: CancelPaymentParams;
        query: CancelPaymentQuery;
        body: CancelPaymentBody;
        response: CancelPaymentResponse;
    };
    erasePayerData: {
        params: ErasePayerDataParams;
        query: ErasePayerDataQuery;
        body: ErasePayerDataBody;
        response: ErasePayerDataResponse;
    };
    createCheckout: {
        params: CreateCheckoutParams;
        query: CreateCheckoutQuery;
        body: CreateCheckoutBody;
        response: CreateCheckoutResponse;
    };
    getCheckout: {
        params: GetCheckoutParams;
        query: GetCheckoutQuery;
        body: GetCheckoutBody;
        response: GetCheckoutResponse;
    };
    listCheckouts: {
        params: ListCheckoutsParams;
        query: ListCheckoutsQuery;
        body: ListCheckoutsBody;
        response: ListCheckoutsResponse;
    };
    expireCheckout: {
        params: ExpireCheckoutParams;
        query: ExpireCheckoutQuery;
        body: ExpireCheckoutBody;
        response: ExpireCheckoutResponse;
    };
    selectCheckoutMethod: {
        params: SelectCheckoutMethodParams;
        query: SelectCheckoutMethodQuery;
        body: SelectCheckoutMethodBody;
        response: SelectCheckoutMethodResponse;
    };
    createPaymentLink: {
        params: CreatePaymentLinkParams;
        query: CreatePaymentLinkQuery;
        body: CreatePaymentLinkBody;
        response: CreatePaymentLinkResponse;
    };
    getPaymentLink: {
        params: GetPaymentLinkParams;
        query: GetPaymentLinkQuery;
        body: GetPaymentLinkBody;
        response: GetPaymentLinkResponse;
    };
    listPaymentLinks: {
        params: ListPaymentLinksParams;
        query: ListPaymentLinksQuery;
        body: ListPaymentLinksBody;
        response: ListPaymentLinksResponse;
    };
    deactivatePaymentLink: {
        params: DeactivatePaymentLinkParams;
        query: DeactivatePaymentLinkQuery;
        body: DeactivatePaymentLinkBody;
        response: DeactivatePaymentLinkResponse;
    };
    startPaymentLinkCheckout: {
        params: StartPaymentLinkCheckoutParams;
        query: StartPaymentLinkCheckoutQuery;
        body: StartPaymentLinkCheckoutBody;
        response: StartPaymentLinkCheckoutResponse;
    };
    listAuditLog: {
        params: ListAuditLogParams;
        query: ListAuditLogQuery;
        body: ListAuditLogBody;
        response: ListAuditLogResponse;
    };
    simulatePayment: {
        params: SimulatePaymentParams;
        query: SimulatePaymentQuery;
        body: SimulatePaymentBody;
        response: SimulatePaymentResponse;
    };
}
/** Every `code` an error body can carry (docs/errors.md). */
export type ErrorCode = 'invalid_json' | 'invalid_request' | 'invalid_idempotency_key' | 'invalid_api_version' | 'unauthorized' | 'client_secret_invalid' | 'invalid_signature' | 'resource_not_found' | 'route_not_found' | 'method_not_allowed' | 'reference_no_conflict' | 'idempotency_request_in_progress' | 'checkout_not_open' | 'checkout_changed' | 'checkout_busy' | 'payment_link_inactive' | 'payment_link_expired' | 'payment_link_used_up' | 'payment_state_conflict' | 'webhook_endpoint_disabled' | 'payload_too_large' | 'unsupported_media_type' | 'idempotency_key_reused' | 'currency_not_supported' | 'amount_out_of_range' | 'channel_not_offered' | 'channel_unavailable' | 'operation_not_supported' | 'refund_not_supported' | 'refund_exceeds_captured' | 'webhook_endpoint_limit_reached' | 'rate_limited' | 'internal_error' | 'service_unavailable' | 'provider_unavailable';
/** The HTTP status of each error code. */
export declare const ERROR_STATUS: {
    readonly [C in ErrorCode]: number;
};
/** A provider issued the instructions; the payment waits for the payer. Sent to every enabled endpoint subscribed to `payment.pending` and to the payment's `callback_url`. See docs/webhooks.md for verification and retries. */
export type PaymentPendingEvent = {
    /** `evt_…`, equal to the `webhook-id` header. */
    id: string;
    type: 'payment.pending';
    /** When the change happened. */
    created_at: string;
    api_version: string;
    data: {
        object: Payment;
        /** Changed fields, before the change. */
        previous_attributes: Record<string, unknown>;
    };
};
/** The payer paid. Fulfil the order. Sent to every enabled endpoint subscribed to `payment.succeeded` and to the payment's `callback_url`. See docs/webhooks.md for verification and retries. */
export type PaymentSucceededEvent = {
    /** `evt_…`, equal to the `webhook-id` header. */
    id: string;
    type: 'payment.succeeded';
    /** When the change happened. */
    created_at: string;
    api_version: string;
    data: {
        object: Payment;
        /** Changed fields, before the change. */
        previous_attributes: Record<string, unknown>;
    };
};
/** The payment cannot be paid any more (the provider refused it, or no provider could issue instructions). Sent to every enabled endpoint subscribed to `payment.failed` and to the payment's `callback_url`. See docs/webhooks.md for verification and retries. */
export type PaymentFailedEvent = {
    /** `evt_…`, equal to the `webhook-id` header. */
    id: string;
    type: 'payment.failed';
    /** When the change happened. */
    created_at: string;
    api_version: string;
    data: {
        object: Payment;
        /** Changed fields, before the change. */
        previous_attributes: Record<string, unknown>;
    };
};
/** Nobody paid before `expires_at`. Sent to every enabled endpoint subscribed to `payment.expired` and to the payment's `callback_url`. See docs/webhooks.md for verification and retries. */
export type PaymentExpiredEvent = {
    /** `evt_…`, equal to the `webhook-id` header. */
    id: string;
    type: 'payment.expired';
    /** When the change happened. */
    created_at: string;
    api_version: string;
    data: {
        object: Payment;
        /** Changed fields, before the change. */
        previous_attributes: Record<string, unknown>;
    };
};
/** The merchant canceled the pending payment. Sent to every enabled endpoint subscribed to `payment.canceled` and to the payment's `callback_url`. See docs/webhooks.md for verification and retries. */
export type PaymentCanceledEvent = {
    /** `evt_…`, equal to the `webhook-id` header. */
    id: string;
    type: 'payment.canceled';
    /** When the change happened. */
    created_at: string;
    api_version: string;
    data: {
        object: Payment;
        /** Changed fields, before the change. */
        previous_attributes: Record<string, unknown>;
    };
};
/** The provider paid the money out to the merchant; the payment's settlement fields say when, the fee and the net. Sent to every enabled endpoint subscribed to `payment.settled` and to the payment's `callback_url`. See docs/webhooks.md for verification and retries. */
export type PaymentSettledEvent = {
    /** `evt_…`, equal to the `webhook-id` header. */
    id: string;
    type: 'payment.settled';
    /** When the change happened. */
    created_at: string;
    api_version: string;
    data: {
        object: Payment;
        /** Changed fields, before the change. */
        previous_attributes: Record<string, unknown>;
    };
};
/** The provider took a succeeded payment back (for example a disputed transfer). Sent to every enabled endpoint subscribed to `payment.reversed` and to the payment's `callback_url`. See docs/webhooks.md for verification and retries. */
export type PaymentReversedEvent = {
    /** `evt_…`, equal to the `webhook-id` header. */
    id: string;
    type: 'payment.reversed';
    /** When the change happened. */
    created_at: string;
    api_version: string;
    data: {
        object: Payment;
        /** Changed fields, before the change. */
        previous_attributes: Record<string, unknown>;
    };
};
/** A refund reached the payer. The payment’s `amount_refunded` includes it. Sent to every enabled endpoint subscribed to `refund.succeeded` and to the payment's `callback_url`. See docs/webhooks.md for verification and retries. */
export type RefundSucceededEvent = {
    /** `evt_…`, equal to the `webhook-id` header. */
    id: string;
    type: 'refund.succeeded';
    /** When the change happened. */
    created_at: string;
    api_version: string;
    data: {
        object: Refund;
        /** Changed fields, before the change. */
        previous_attributes: Record<string, unknown>;
    };
};
/** A refund could not be made; no money moved. Sent to every enabled endpoint subscribed to `refund.failed` and to the payment's `callback_url`. See docs/webhooks.md for verification and retries. */
export type RefundFailedEvent = {
    /** `evt_…`, equal to the `webhook-id` header. */
    id: string;
    type: 'refund.failed';
    /** When the change happened. */
    created_at: string;
    api_version: string;
    data: {
        object: Refund;
        /** Changed fields, before the change. */
        previous_attributes: Record<string, unknown>;
    };
};
/** A reconciliation ran: a provider's settlement report was compared with Tributary's records. Sent for every reconciliation; `status` and `summary` say whether everything matched (GET /reconciliation/{id} has the lines). Sent to every enabled endpoint subscribed to `reconciliation.completed`. See docs/webhooks.md for verification and retries. */
export type ReconciliationCompletedEvent = {
    /** `evt_…`, equal to the `webhook-id` header. */
    id: string;
    type: 'reconciliation.completed';
    /** When the change happened. */
    created_at: string;
    api_version: string;
    data: {
        object: Reconciliation;
        /** Changed fields, before the change. */
        previous_attributes: Record<string, unknown>;
    };
};
/** A reconciliation found at least one discrepancy (missing on either side, amount or currency mismatch, duplicate, unknown reference, late); sent with `reconciliation.completed`. `summary` counts each kind; GET /reconciliation/{id} or its CSV lists the lines. docs/money.md says what to do about each. Sent to every enabled endpoint subscribed to `reconciliation.discrepancy`. See docs/webhooks.md for verification and retries. */
export type ReconciliationDiscrepancyEvent = {
    /** `evt_…`, equal to the `webhook-id` header. */
    id: string;
    type: 'reconciliation.discrepancy';
    /** When the change happened. */
    created_at: string;
    api_version: string;
    data: {
        object: Reconciliation;
        /** Changed fields, before the change. */
        previous_attributes: Record<string, unknown>;
    };
};
/** A provider's settlement report named one of your payments with figures Tributary could not apply (amount or currency mismatch, a payment not `succeeded`, a second settlement with other figures, an unknown charge). No money moved; the payment is not settled by that line. An operator resolves it (docs/money.md "Settlement exceptions"). Sent to every enabled endpoint subscribed to `settlement_exception.created`. See docs/webhooks.md for verification and retries. */
export type SettlementExceptionCreatedEvent = {
    /** `evt_…`, equal to the `webhook-id` header. */
    id: string;
    type: 'settlement_exception.created';
    /** When the change happened. */
    created_at: string;
    api_version: string;
    data: {
        object: SettlementException;
        /** Changed fields, before the change. */
        previous_attributes: Record<string, unknown>;
    };
};
/** An operator resolved a settlement exception; `resolution` says what was done. Final: a resolved exception does not change again. Sent to every enabled endpoint subscribed to `settlement_exception.resolved`. See docs/webhooks.md for verification and retries. */
export type SettlementExceptionResolvedEvent = {
    /** `evt_…`, equal to the `webhook-id` header. */
    id: string;
    type: 'settlement_exception.resolved';
    /** When the change happened. */
    created_at: string;
    api_version: string;
    data: {
        object: SettlementException;
        /** Changed fields, before the change. */
        previous_attributes: Record<string, unknown>;
    };
};
/** Tributary disabled one of your endpoints: it answered 410 Gone, or every attempt to it failed for 5 days. Fix it, then re-enable it and redeliver what it missed. Sent to every enabled endpoint subscribed to `webhook_endpoint.disabled`. See docs/webhooks.md for verification and retries. */
export type WebhookEndpointDisabledEvent = {
    /** `evt_…`, equal to the `webhook-id` header. */
    id: string;
    type: 'webhook_endpoint.disabled';
    /** When the change happened. */
    created_at: string;
    api_version: string;
    data: {
        object: WebhookEndpoint;
        /** Changed fields, before the change. */
        previous_attributes: Record<string, unknown>;
    };
};
/** A payment of the checkout succeeded; `data.object.payment` is that payment. The checkout never collects again. Sent to every enabled endpoint subscribed to `checkout.completed`. See docs/webhooks.md for verification and retries. */
export type CheckoutCompletedEvent = {
    /** `evt_…`, equal to the `webhook-id` header. */
    id: string;
    type: 'checkout.completed';
    /** When the change happened. */
    created_at: string;
    api_version: string;
    data: {
        object: Checkout;
        /** Changed fields, before the change. */
        previous_attributes: Record<string, unknown>;
    };
};
/** The checkout expired (its time passed, or you expired it) without a successful payment; its pending payment was canceled. Sent to every enabled endpoint subscribed to `checkout.expired`. See docs/webhooks.md for verification and retries. */
export type CheckoutExpiredEvent = {
    /** `evt_…`, equal to the `webhook-id` header. */
    id: string;
    type: 'checkout.expired';
    /** When the change happened. */
    created_at: string;
    api_version: string;
    data: {
        object: Checkout;
        /** Changed fields, before the change. */
        previous_attributes: Record<string, unknown>;
    };
};
/** Every event type the API sends today; new ones may appear (ignore types you do not know). */
export declare const EVENT_TYPES: readonly ["payment.pending", "payment.succeeded", "payment.failed", "payment.expired", "payment.canceled", "payment.settled", "payment.reversed", "refund.succeeded", "refund.failed", "reconciliation.completed", "reconciliation.discrepancy", "settlement_exception.created", "settlement_exception.resolved", "webhook_endpoint.disabled", "checkout.completed", "checkout.expired"];
export type EventType = (typeof EVENT_TYPES)[number];
/** A verified webhook delivery, narrowed by `type`. */
export type WebhookEvent = PaymentPendingEvent | PaymentSucceededEvent | PaymentFailedEvent | PaymentExpiredEvent | PaymentCanceledEvent | PaymentSettledEvent | PaymentReversedEvent | RefundSucceededEvent | RefundFailedEvent | ReconciliationCompletedEvent | ReconciliationDiscrepancyEvent | SettlementExceptionCreatedEvent | SettlementExceptionResolvedEvent | WebhookEndpointDisabledEvent | CheckoutCompletedEvent | CheckoutExpiredEvent;
