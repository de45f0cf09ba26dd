/**
 * OpenAPI `links` (3.1 §4.8.20): which operation a response leads to and which of its fields fills
 * which parameter, so clients and the stateful test (test/integration/stateful-sequence.test.ts)
 * can follow create → get → refund → get refund → events from the document alone.
 * @fastify/swagger has no way to declare them on a route, so they are listed here, by operationId
 * and status, and added to the document (app.ts's transformObject); a link naming an operation or
 * parameter that does not exist fails the contract test.
 */
export interface Link {
  operationId: string;
  parameters: Record<string, string>;
  description: string;
}

const byId = (operationId: string, description: string, field = 'id'): Link => ({
  operationId,
  parameters: { id: `$response.body#/${field}` },
  description,
});
const eventsOf = (what: string): Link => ({
  operationId: 'listEvents',
  parameters: { object_id: '$response.body#/id' },
  description: `The events about this ${what}.`,
});

const paymentLinks = {
  GetPayment: byId('getPayment', 'The payment, as it is now.'),
  CancelPayment: byId('cancelPayment', 'Cancel the payment while it is pending.'),
  RefundPayment: byId('refundPayment', 'Refund the payment once it succeeded.'),
  SimulatePayment: byId('simulatePayment', 'Sandbox: make the payer or the provider act.'),
  ListPaymentEvents: eventsOf('payment'),
};

export const OPERATION_LINKS: Record<string, Record<string, Record<string, Link>>> = {
  createPayment: { '201': paymentLinks },
  getPayment: { '200': paymentLinks },
  simulatePayment: {
    '202': {
      GetSimulatedPayment: byId('getPayment', 'The payment once the provider’s notification is processed.', 'payment_id'),
      RefundSimulatedPayment: byId('refundPayment', 'Refund it once it succeeded.', 'payment_id'),
    },
  },
  refundPayment: {
    '201': {
      GetRefund: byId('getRefund', 'The refund, as it is now.'),
      GetRefundedPayment: byId('getPayment', 'The payment it refunds.', 'payment_id'),
      ListRefundEvents: eventsOf('refund'),
    },
  },
  createWebhookEndpoint: {
    '201': {
      GetWebhookEndpoint: byId('getWebhookEndpoint', 'The endpoint.'),
      UpdateWebhookEndpoint: byId('updateWebhookEndpoint', 'Change the endpoint.'),
      RotateWebhookEndpointSecret: byId('rotateWebhookEndpointSecret', 'Rotate its signing secret.'),
      DeleteWebhookEndpoint: byId('deleteWebhookEndpoint', 'Delete the endpoint.'),
    },
  },
  getEvent: {
    '200': {
      ListEventDeliveries: byId('listEventDeliveries', 'Its deliveries.'),
      RedeliverEvent: byId('redeliverEvent', 'Send it again.'),
    },
  },
  createCheckout: {
    '201': {
      GetCheckout: byId('getCheckout', 'The checkout.'),
      ExpireCheckout: byId('expireCheckout', 'End the checkout.'),
      SelectCheckoutMethod: byId('selectCheckoutMethod', 'Choose how to pay (with the client_secret of this answer).'),
      ListCheckoutEvents: eventsOf('checkout'),
    },
  },
  createReconciliation: {
    '201': {
      GetReconciliation: byId('getReconciliation', 'The reconciliation.'),
      ListReconciliationLines: byId('listReconciliationLines', 'All its lines.'),
    },
  },
};

type Document = {
  paths?: Record<string, Record<string, { operationId?: string; responses?: Record<string, { links?: unknown }> }>>;
};

export function addOperationLinks<T>(doc: T): T {
  for (const item of Object.values((doc as Document).paths ?? {})) {
    for (const operation of Object.values(item)) {
      const links = operation.operationId === undefined ? undefined : OPERATION_LINKS[operation.operationId];
      for (const [status, byName] of Object.entries(links ?? {})) {
        const response = operation.responses?.[status];
        if (response !== undefined) response.links = byName;
      }
    }
  }
  return doc;
}
