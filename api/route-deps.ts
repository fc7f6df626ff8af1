import type { FastifyRequest } from 'fastify';
import type { Sql } from '../db/client.js';
import type { CursorBinding } from '../domain/kernel/index.js';

/** What resource route modules receive when registered. */
export interface RouteDeps {
  sql: Sql;
  cursorSecret: string;
  publicBaseUrl: string;
}

/** A cursor is valid only for the list, shop and parameters (all but `cursor`) it was issued for. */
export function cursorBinding(deps: RouteDeps, request: FastifyRequest, list: string): CursorBinding {
  const { cursor: _cursor, ...parameters } = request.query as Record<string, unknown>;
  return { secret: deps.cursorSecret, scope: { list, shop: request.auth.shop.id, ...parameters } };
}
