import { z } from 'zod';
import type { Tx } from '../kernel/index.js';

/** A key as the connection screen lists it: never the key itself, only its display prefix. */
export const ListedKey = z.object({
  id: z.uuid(),
  displayPrefix: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable().describe('When the key last authenticated a request (to the minute); null: never'),
  expiresAt: z.string().nullable().describe('Set while the key overlaps its successor after a rotation'),
  revokedAt: z.string().nullable(),
  live: z.boolean(),
});

/** Why the application's creator can no longer vouch for it: the screen labels it and offers rotate and revoke. */
export const CreatorAlert = z.enum(['left', 'disabled', 'locked', 'password-changed']);

export const ListedApplication = z
  .object({
    id: z.uuid(),
    name: z.string(),
    permissions: z.array(z.string()),
    pageIds: z.array(z.uuid()),
    createdAt: z.string(),
    createdBy: z.object({ id: z.uuid(), name: z.string() }).nullable(),
    creatorAlert: CreatorAlert.nullable(),
    keys: z.array(ListedKey).describe('Newest first; revoked and expired keys of the last 30 days too'),
  })
  .meta({ id: 'AdminApplication' });
export type ListedApplication = z.infer<typeof ListedApplication>;

/** The shop's connection applications (removed ones left out) with their keys, oldest first. */
export async function listApplications(tx: Tx): Promise<ListedApplication[]> {
  return [
    ...(await tx<ListedApplication[]>`
    select a.id, a.name, a.permissions, a.page_ids, api_time(a.created_at) as created_at,
      case when u.id is null then null else json_build_object('id', u.id, 'name', u.name) end as created_by,
      case
        when m.status = 'left' then 'left'
        when m.status = 'disabled' then 'disabled'
        when u.locked then 'locked'
        when u.password_changed_at > a.created_at then 'password-changed'
      end as creator_alert,
      coalesce((
        select json_agg(json_build_object(
          'id', k.id, 'displayPrefix', k.display_prefix, 'createdAt', api_time(k.created_at),
          'lastUsedAt', api_time(k.last_used_at), 'expiresAt', api_time(k.expires_at), 'revokedAt', api_time(k.revoked_at),
          'live', k.revoked_at is null and (k.expires_at is null or k.expires_at > now())) order by k.created_at desc)
        from api_keys k
        where k.application_id = a.id and coalesce(k.revoked_at, k.expires_at, now()) > now() - interval '30 days'), '[]') as keys
    from applications a
    left join users u on u.id = a.created_by
    left join shop_members m on m.user_id = a.created_by and m.shop_id = a.shop_id
    where a.removed_at is null
    order by a.created_at, a.id`),
  ];
}
