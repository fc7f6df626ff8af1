import { expect } from 'vitest';
import type { Sql } from '../../db/client.js';
import { addMember } from '../../domain/access/index.js';
import { withShop } from '../../domain/kernel/index.js';

export const ADMIN_PASSWORD = 'correct horse battery staple';

/** `admin@shop.test` (the owner role) and `viewer@shop.test` (a role with automation.flows.view only), both with ADMIN_PASSWORD. */
export async function addAdminAndViewer(sql: Sql, shopId: string): Promise<void> {
  await addMember(sql, shopId, { email: 'admin@shop.test', name: 'Admin', password: ADMIN_PASSWORD });
  await withShop(
    sql,
    shopId,
    (tx) => tx`insert into roles (shop_id, name, permissions) values (${shopId}, 'Viewer', ${['automation.flows.view']})`,
  );
  await addMember(sql, shopId, { email: 'viewer@shop.test', name: 'Viewer', role: 'Viewer', password: ADMIN_PASSWORD });
}

/** A request of the admin web app: its session cookie, and the CSRF token unless `csrf` is false. */
export type AdminRequest = (method: string, path: string, body?: unknown, options?: { csrf?: boolean }) => Promise<Response>;

/** Logs a shop member in to the admin API (`/api/admin`) and answers their requests. */
export async function adminLogIn(baseUrl: string, login: { shop: string; email: string; password: string }): Promise<AdminRequest> {
  const response = await fetch(`${baseUrl}/api/admin/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(login),
  });
  expect(response.status).toBe(200);
  const cookie = response.headers.get('set-cookie')!.split(';')[0]!;
  const { csrfToken } = (await response.json()) as { csrfToken: string };
  return (method, path, body, { csrf = true } = {}) =>
    fetch(`${baseUrl}/api/admin${path}`, {
      method,
      headers: {
        cookie,
        ...(csrf ? { 'x-csrf-token': csrfToken } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
}

/** `admin@shop.test` and `viewer@shop.test` added to the shop (addAdminAndViewer), both logged in to the API at `baseUrl`. */
export async function logInAdminAndViewer(
  baseUrl: string,
  sql: Sql,
  shop: { shopId: string; slug: string },
): Promise<{ admin: AdminRequest; viewer: AdminRequest }> {
  await addAdminAndViewer(sql, shop.shopId);
  const logIn = (email: string) => adminLogIn(baseUrl, { shop: shop.slug, email, password: ADMIN_PASSWORD });
  return { admin: await logIn('admin@shop.test'), viewer: await logIn('viewer@shop.test') };
}
