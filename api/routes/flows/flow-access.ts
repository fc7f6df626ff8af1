import type { FastifyRequest } from 'fastify';
import { assertHolds } from '../../../domain/access/index.js';

/** Changing a flow (saving, switching, test-runs, resends) needs automation.flows.manage: 403 `insufficient-permission` otherwise. */
export function assertMayManageFlows(request: FastifyRequest, doing = 'changing flows'): void {
  assertHolds(request.admin.permissions, ['automation.flows.manage'], doing);
}

/** Reading flows (their deliveries, health, batch resends) needs automation.flows.view or manage. */
export function assertMayReadFlows(request: FastifyRequest): void {
  if (!request.admin.permissions.includes('automation.flows.view')) assertMayManageFlows(request, 'reading flows');
}
