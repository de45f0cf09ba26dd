import type { Connector } from '../core/connector.ts';
import { createXenditBankConnector } from './xendit-bank.connector.ts';
import { createXenditClient, type XenditOptions } from './xendit-client.ts';
import { createXenditCounterConnector } from './xendit-counter.connector.ts';
import { createXenditEwalletConnector } from './xendit-ewallet.connector.ts';

export type { XenditOptions } from './xendit-client.ts';

/** The Xendit family: `xendit_bank`, `xendit_ewallet`, `xendit_counter`, sharing one client. */
export function createXenditConnectors(options: XenditOptions): Connector[] {
  const client = createXenditClient(options);
  return [createXenditBankConnector(client), createXenditEwalletConnector(client), createXenditCounterConnector(client)];
}
