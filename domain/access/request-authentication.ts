import type { Sql } from '../../db/client.js';
import type { RateCounter } from './rate-limits.js';

/** A live key's application and shop, and the request's hit on its rate counter. */
export interface AuthenticatedRequest {
  keyId: string;
  applicationId: string;
  applicationName: string;
  permissions: string[];
  pageIds: string[];
  shopId: string;
  shopSlug: string;
  shopName: string;
  plan: 'active' | 'expired';
  suspended: boolean;
  automationEnabled: boolean;
  recomputeCeilingSeconds: number;
  hits: number;
  windowStart: Date;
}

/**
 * The first query of every API request, one round trip: the key (by its hash) with its application
 * and shop, and the hit on `counter` (authenticate_request); undefined for a key unknown, revoked or expired.
 */
export async function authenticateRequest(sql: Sql, keyHash: string, counter: RateCounter): Promise<AuthenticatedRequest | undefined> {
  const [auth] = await sql<AuthenticatedRequest[]>`select * from authenticate_request(${keyHash}, ${counter})`;
  return auth;
}
