import { Problem } from '../kernel/index.js';

/** Permissions an application (and so an API key) may hold. */
export const GRANTABLE_PERMISSIONS = [
  'pos.orders.read',
  'pos.orders.create',
  'pos.orders.update',
  'pos.orders.delete',
  'pos.orders.assign',
  'pos.orders.price.override',
  'pos.orders.payment.record',
  'pos.products.read',
  'pos.products.create',
  'pos.products.update',
  'pos.products.delete',
  'pos.customers.read',
  'pos.customers.create',
  'pos.customers.update',
  'pos.shipping.read',
  'pos.inventory.read',
  'pos.inventory.update',
  'social.pages.read',
  'social.conversations.read',
  'social.messages.send',
] as const;

/** Shop administration and the automation application's own permissions: people only, never keys. */
export const PEOPLE_ONLY_PERMISSIONS = [
  'settings.members',
  'settings.roles',
  'settings.sales_channels',
  /** Shop set-up of carrier connections (credentials, callback URL); reading them needs it or pos.shipping.read. */
  'settings.carriers',
  'settings.plan',
  'settings.log',
  'automation.connections.manage',
  'automation.flows.manage',
  'automation.flows.view',
] as const;

export const ALL_PERMISSIONS: readonly string[] = [...GRANTABLE_PERMISSIONS, ...PEOPLE_ONLY_PERMISSIONS];

export type Permission = (typeof GRANTABLE_PERMISSIONS)[number] | (typeof PEOPLE_ONLY_PERMISSIONS)[number];

export const CHAT_PERMISSIONS: readonly string[] = ['social.pages.read', 'social.conversations.read', 'social.messages.send'];

export function isGrantable(permission: string): boolean {
  return (GRANTABLE_PERMISSIONS as readonly string[]).includes(permission);
}

/** Throws 403 `insufficient-permission` unless `held` contains every one of `needed`. */
export function assertHolds(held: readonly string[], needed: readonly string[], what: string): void {
  const missing = needed.filter((permission) => !held.includes(permission));
  if (missing.length > 0) {
    throw new Problem('insufficient-permission', `${what} needs ${missing.join(' and ')}, which this key does not hold`);
  }
}

/**
 * The granting limits: only grantable permissions, and never more than the granting person holds.
 * Unknown names are a validation error; people-only or excess permissions are refused with 403.
 */
export function assertMayGrant(requested: readonly string[], granterHolds: readonly string[] | 'operator'): void {
  const unknown = requested.filter((permission) => !ALL_PERMISSIONS.includes(permission));
  if (unknown.length > 0) {
    throw new Problem('validation-failed', `unknown permission: ${unknown.join(', ')}`, {
      errors: unknown.map((permission) => ({ path: 'permissions', message: `unknown permission ${permission}` })),
    });
  }
  const peopleOnly = requested.filter((permission) => !isGrantable(permission));
  if (peopleOnly.length > 0) {
    throw new Problem(
      'insufficient-permission',
      `${peopleOnly.join(', ')} can never be granted to an application (settings.* and automation.* are for people)`,
    );
  }
  if (granterHolds === 'operator') return;
  const excess = requested.filter((permission) => !granterHolds.includes(permission));
  if (excess.length > 0) {
    throw new Problem(
      'insufficient-permission',
      `an application cannot get more than the person granting it holds; missing: ${excess.join(', ')}`,
    );
  }
}
