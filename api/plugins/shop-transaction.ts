import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import type { Sql } from '../../db/client.js';
import { withShop, type Tx } from '../../domain/kernel/index.js';
import { isUnderPrefix } from './route-area.js';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * Runs `work` in one transaction of the caller's shop (row-level security set to it): the key's
     * shop under the Open API, the session's shop under the admin API. Unauthenticated: 401.
     */
    inShop<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
  }
}

/** The one place a route gets its shop transaction, so no route picks a shop id by hand. */
export const shopTransactionPlugin = fp<{ sql: Sql; adminPrefix: string }>(async (app, { sql, adminPrefix }) => {
  app.decorateRequest('inShop', function inShop<T>(this: FastifyRequest, work: (tx: Tx) => Promise<T>): Promise<T> {
    const shopId = isUnderPrefix(this, adminPrefix) ? this.admin.shopId : this.auth.shop.id;
    return withShop(sql, shopId, work);
  });
});
