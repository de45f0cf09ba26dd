import type { FastifyInstance } from 'fastify';
import type { ReconcileDeps } from '../../modules/reconciliation/reconcile.ts';
import type { RouteDeps } from '../route-deps.ts';
import { ReconciliationLineListSchema, ReconciliationSchema } from '../schemas/reconciliation.schema.ts';
import { SettlementExceptionListSchema, SettlementExceptionSchema } from '../schemas/settlement-exception.schema.ts';
import { SettlementListSchema, SettlementSchema } from '../schemas/settlement.schema.ts';
import { registerCreateReconciliation } from './reconciliation/create-reconciliation.route.ts';
import { registerGetReconciliation } from './reconciliation/get-reconciliation.route.ts';
import { registerListReconciliationLines } from './reconciliation/list-reconciliation-lines.route.ts';
import { registerGetSettlement } from './settlement/get-settlement.route.ts';
import { registerListSettlements } from './settlement/list-settlements.route.ts';
import { registerGetSettlementException } from './settlement_exception/get-settlement-exception.route.ts';
import { registerListSettlementExceptions } from './settlement_exception/list-settlement-exceptions.route.ts';

/**
 * The routes of money after success that the settlement work adds (issue 5): settlements and
 * reconciliations. One registration function so that app.ts stays a list of calls.
 */
export function addMoneySchemas(app: FastifyInstance): void {
  app.addSchema(SettlementSchema);
  app.addSchema(SettlementListSchema);
  app.addSchema(SettlementExceptionSchema);
  app.addSchema(SettlementExceptionListSchema);
  app.addSchema(ReconciliationSchema);
  app.addSchema(ReconciliationLineListSchema);
}

export function registerMoneyRoutes(app: FastifyInstance, deps: RouteDeps & { reconcile: ReconcileDeps }): void {
  registerListSettlements(app, deps);
  registerGetSettlement(app, deps);
  registerListSettlementExceptions(app, deps);
  registerGetSettlementException(app, deps);
  registerCreateReconciliation(app, deps.reconcile);
  registerGetReconciliation(app, deps);
  registerListReconciliationLines(app, deps);
}
