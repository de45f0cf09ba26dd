import type { Channel, Environment, Instructions } from '../../connectors/core/connector.ts';
import type { CurrencyCode } from '../../lib/currencies.ts';
import type { PaymentStatus } from './payment-states.ts';

export type ChannelRequest = Channel | 'auto';

/** Who is calling: decided by the API key, scoping every query. */
export interface Principal {
  merchantId: string;
  merchantName: string;
  environment: Environment;
  apiVersion: string;
  keyId: string;
}

export interface PaymentMethod {
  channel: Channel;
  connector: string;
  instrument: string;
  instrument_name: string;
}

/** A payment as stored (amounts in minor units). */
export interface Payment {
  id: string;
  merchantId: string;
  environment: Environment;
  status: PaymentStatus;
  amountMinor: bigint;
  currency: CurrencyCode;
  referenceNo: string;
  description: string | null;
  channelRequested: ChannelRequest;
  channel: Channel | null;
  paymentMethod: PaymentMethod | null;
  instructions: Instructions | null;
  metadata: Record<string, string>;
  email: string | null;
  callbackUrl: string | null;
  apiVersion: string;
  version: number;
  expiresAt: Date;
  failureCode: string | null;
  failureMessage: string | null;
  amountRefundedMinor: bigint;
  createdAt: Date;
  updatedAt: Date;
  succeededAt: Date | null;
  closedAt: Date | null;
}

export type AttemptStatus = 'started' | 'issued' | 'failed' | 'succeeded' | 'expired' | 'canceled';

export interface Attempt {
  id: string;
  paymentId: string;
  seq: number;
  connector: string;
  channel: Channel;
  instrument: string | null;
  status: AttemptStatus;
  providerReference: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  createdAt: Date;
}
