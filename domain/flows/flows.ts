import { createHash, randomUUID, type KeyObject } from 'node:crypto';
import { decodeTime, encodeTime } from 'ulidx';
import type { Actor } from '../access/index.js';
import { assertMayGrant, existingPageIds, memberPermissions, writeShopLog } from '../access/index.js';
import { EVENT_READ_PERMISSIONS, isEventType, needsPage, type EventType, type StoredEvent } from '../events/index.js';
import { isUuid, Problem, refuseAbsent, refuseAtCap, syncedPage } from '../kernel/index.js';
import type { CursorBinding, Page, Tx } from '../kernel/index.js';
import { assertConditionFits } from './condition-fields.js';
import { lastDeliveryOf } from './deliveries.js';
import type { FlowCondition } from './flow-conditions.js';
import { addSigningSecret } from './webhook-secrets.js';

export type FlowState = 'draft' | 'on' | 'off';

export interface FlowInput {
  name: string;
  /** The Trigger's event types; `eventType` names one (the form of one-type flows), never both unless they agree. */
  eventTypes?: string[];
  eventType?: string;
  /** The Condition block; null or absent: every event of the types goes. */
  condition?: FlowCondition | null;
  pageId?: string | null;
  url: string;
  /** The flow's account; by default exactly what its event types need. */
  permissions?: string[];
  pageIds?: string[];
  state?: FlowState;
}

export interface MatchedFlow {
  id: string;
  name: string;
  url: string;
  permissions: string[];
  condition: FlowCondition | null;
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * The `webhook-id` of the delivery of `eventId` to `flowId`: ULID-shaped (`msg_` + 26), timed like
 * the event, the rest derived from both ids, so that a relay restart or a resend yields the same id.
 */
export function deliveryIdFor(flowId: string, eventId: string): string {
  const time = encodeTime(decodeTime(eventId.slice(4)), 10);
  const hash = createHash('sha256').update(`${flowId}:${eventId}`).digest();
  let random = '';
  for (let index = 0; index < 16; index += 1) random += CROCKFORD[hash[index]! % 32];
  return `msg_${time}${random}`;
}

function validateDestination(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Problem('validation-failed', 'the HTTP-send address is not a URL', {
      errors: [{ path: 'url', message: 'must be an https URL' }],
    });
  }
  if (parsed.protocol !== 'https:')
    throw new Problem('validation-failed', 'the HTTP-send address must use https', {
      errors: [{ path: 'url', message: 'must be an https URL' }],
    });
}

/**
 * The chat pages a flow names must be the shop's: the foreign key alone would accept another shop's
 * page (it does not see row-level security). 400, detail only, otherwise.
 */
async function assertShopPages(tx: Tx, pages: { pageId?: string | null | undefined; pageIds?: string[] | undefined }): Promise<void> {
  const named = [
    ...(pages.pageId ? [{ path: 'pageId', id: pages.pageId }] : []),
    ...(pages.pageIds ?? []).map((id, index) => ({ path: `pageIds.${index}`, id })),
  ];
  if (named.length === 0) return;
  const known = await existingPageIds(tx, named.map((page) => page.id).filter(isUuid));
  refuseAbsent(named.filter((page) => !known.includes(page.id.toLowerCase())).map((page) => ({ ...page, noun: 'page' })));
}

/** 400 `validation-failed` with `detail`, and `message` on the field at `path`. */
const triggerError = (path: string, message: string, detail = message) =>
  new Problem('validation-failed', detail, { errors: [{ path, message }] });

/** The event types an input names (`eventTypes`, or `eventType` for one), in order, once each; undefined when it names none. */
function chosenTypes(input: { eventType?: string | undefined; eventTypes?: string[] | undefined }): EventType[] | undefined {
  const { eventType, eventTypes } = input;
  if (eventType !== undefined && eventTypes !== undefined && (eventTypes.length !== 1 || eventTypes[0] !== eventType))
    throw triggerError('eventType', 'name the event types once: eventTypes, or eventType for a single one');
  const types = eventTypes ?? (eventType === undefined ? undefined : [eventType]);
  if (types === undefined) return undefined;
  const unknown = types.findIndex((type) => !isEventType(type));
  if (unknown >= 0)
    throw triggerError(eventTypes ? `eventTypes.${unknown}` : 'eventType', 'unknown event type', `unknown event type ${types[unknown]}`);
  if (types.length === 0) throw triggerError('eventTypes', 'the Trigger needs at least one event type');
  return [...new Set(types as EventType[])];
}

/** A Trigger listening to message events must name the chat page; the Condition must fit the types' fields. */
function assertTrigger(types: readonly EventType[], pageId: string | null | undefined, condition: FlowCondition | null | undefined): void {
  if (types.some(needsPage) && !pageId)
    throw triggerError('pageId', 'required for message events', 'a message event needs the chat page the flow listens to');
  if (condition) assertConditionFits(condition, types);
}

/** A flow with its HTTP-send block and first signing secret (sealed with `secretsKey`; the plaintext is shown once, here). */
export async function createFlow(
  tx: Tx,
  shopId: string,
  input: FlowInput,
  actor: Actor,
  secretsKey: KeyObject,
): Promise<{ flowId: string; secret: string }> {
  const eventTypes = chosenTypes(input);
  if (!eventTypes) throw triggerError('eventTypes', 'the Trigger needs at least one event type');
  assertTrigger(eventTypes, input.pageId, input.condition);
  validateDestination(input.url);
  await assertShopPages(tx, input);
  const permissions = [...new Set(input.permissions ?? eventTypes.flatMap((type) => EVENT_READ_PERMISSIONS[type]))].sort();
  assertMayGrant(permissions, actor === null ? 'operator' : await memberPermissions(tx, actor));
  const pageIds = input.pageIds ?? (input.pageId ? [input.pageId] : []);
  await refuseAtCap(tx, shopId, 'flows', tx`select from flows`);
  const flowId = randomUUID();
  const state = input.state ?? 'draft';
  await tx`
    insert into flows (id, shop_id, name, event_types, condition, page_id, url, state, permissions, page_ids, switched_on_at, saved_by)
    values (${flowId}, ${shopId}, ${input.name}, ${eventTypes}, ${input.condition ? tx.json(input.condition as never) : null},
            ${input.pageId ?? null}, ${input.url}, ${state}, ${permissions}, ${pageIds},
            ${state === 'on' ? tx`clock_timestamp()` : null}, ${actor})`;
  const secret = await addSigningSecret(tx, flowId, shopId, secretsKey);
  await writeShopLog(tx, {
    shopId,
    actorUserId: actor,
    action: 'flow.created',
    subjectType: 'flow',
    subjectId: flowId,
    details: { eventTypes, state },
  });
  return { flowId, secret };
}

/** On, off or draft. Switching on marks the moment from which events are sent to the flow. */
export async function setFlowState(tx: Tx, flowId: string, state: FlowState, actor: Actor): Promise<void> {
  const [flow] = await tx<{ shopId: string }[]>`
    update flows set
      state = ${state},
      switched_on_at = case when ${state} = 'on' and state <> 'on' then clock_timestamp() else switched_on_at end,
      http_enabled = case when ${state} = 'on' then true else http_enabled end,
      updated_at = now()
    where id = ${flowId}
    returning shop_id`;
  if (!flow) throw new Problem('not-found', `no flow ${flowId}`);
  await writeShopLog(tx, {
    shopId: flow.shopId,
    actorUserId: actor,
    action: 'flow.state_changed',
    subjectType: 'flow',
    subjectId: flowId,
    details: { state },
  });
}

/**
 * The flows an event goes to (in the event's shop): on, HTTP-send block enabled, listening to the
 * event's type since before the event, whose account holds every read permission of the type, and
 * for message events listening to the event's page, which the account may use. Their conditions are
 * the caller's to test.
 */
export async function matchingFlows(tx: Tx, event: StoredEvent): Promise<MatchedFlow[]> {
  const needed = EVENT_READ_PERMISSIONS[event.type] as readonly string[];
  // A message event without a page goes to no flow (rather than to the flows of every page).
  const pageCondition = needsPage(event.type)
    ? tx`page_id = ${(event.data.pageId as string | undefined) ?? null}::uuid and page_id = any(page_ids)`
    : tx`true`;
  return tx<MatchedFlow[]>`
    select id, name, url, permissions, condition from flows
    where state = 'on' and http_enabled and ${event.type} = any(event_types)
      and switched_on_at <= ${event.createdAt}
      and permissions @> ${needed as string[]}::text[]
      and ${pageCondition}`;
}

/** A 410 Gone from the receiver: the HTTP-send block is switched off, and the shop log says why. */
export async function switchOffHttpSend(tx: Tx, flowId: string, reason: string): Promise<void> {
  const [flow] = await tx<
    { shopId: string }[]
  >`update flows set http_enabled = false, updated_at = now() where id = ${flowId} returning shop_id`;
  if (!flow) return;
  await writeShopLog(tx, {
    shopId: flow.shopId,
    actorUserId: null,
    action: 'flow.http_send_switched_off',
    subjectType: 'flow',
    subjectId: flowId,
    details: { reason },
  });
}

export interface Flow {
  id: string;
  name: string;
  /** The first of `eventTypes`: what one-type clients read. */
  eventType: string;
  eventTypes: EventType[];
  condition: FlowCondition | null;
  pageId: string | null;
  url: string;
  httpEnabled: boolean;
  state: FlowState;
  permissions: string[];
  pageIds: string[];
  switchedOnAt: string | null;
  createdAt: string;
  updatedAt: string;
}

const FLOW_COLUMNS = (tx: Tx) => tx`
  id, name, event_types[1] as event_type, event_types, condition, page_id, url, http_enabled, state, permissions, page_ids,
  api_time(switched_on_at) as switched_on_at, api_time(created_at) as created_at, api_time(updated_at) as updated_at`;

/** A flow in the admin list, with its latest run. */
export type ListedFlow = Flow & { lastDelivery: { status: string; createdAt: string } | null };

/** One page of the shop's flows, oldest first; `cursor` from the previous page (400 `invalid-cursor` otherwise). */
export async function listFlows(tx: Tx, query: { limit: number; cursor?: string }, binding: CursorBinding): Promise<Page<ListedFlow>> {
  return syncedPage<ListedFlow>(
    tx,
    {
      table: 'flows',
      column: 'created_at',
      softDelete: false,
      source: tx`flows`,
      columns: tx`${FLOW_COLUMNS(tx)}, ${lastDeliveryOf(tx, tx`flows.id`)} as last_delivery`,
    },
    // No `updatedSince`, so no recompute ceiling applies.
    { query, binding, ceilingSeconds: 0 },
  );
}

export async function getFlow(tx: Tx, flowId: string): Promise<Flow> {
  const [flow] = await tx<Flow[]>`select ${FLOW_COLUMNS(tx)} from flows where id = ${flowId}`;
  if (!flow) throw new Problem('not-found', `no flow ${flowId}`);
  return flow;
}

/** Edits a flow; its account is re-checked against the saving person's permissions. */
export async function updateFlow(tx: Tx, flowId: string, changes: Partial<Omit<FlowInput, 'state'>>, actor: Actor): Promise<Flow> {
  const current = await getFlow(tx, flowId);
  const eventTypes = chosenTypes(changes) ?? current.eventTypes;
  const pageId = changes.pageId === undefined ? current.pageId : changes.pageId;
  const condition = changes.condition === undefined ? current.condition : changes.condition;
  assertTrigger(eventTypes, pageId, condition);
  const url = changes.url ?? current.url;
  validateDestination(url);
  await assertShopPages(tx, changes);
  const permissions = [...new Set(changes.permissions ?? current.permissions)].sort();
  assertMayGrant(permissions, actor === null ? 'operator' : await memberPermissions(tx, actor));
  // The account's pages follow the trigger page only when the edit names one; otherwise they stay.
  const pageIds = changes.pageIds ?? (changes.pageId === undefined ? current.pageIds : pageId ? [pageId] : []);
  const [updated] = await tx<{ shopId: string }[]>`
    update flows set name = ${changes.name ?? current.name}, event_types = ${eventTypes},
      condition = ${condition ? tx.json(condition as never) : null}, page_id = ${pageId}, url = ${url},
      permissions = ${permissions}, page_ids = ${pageIds}, saved_by = ${actor}, updated_at = now()
    where id = ${flowId}
    returning shop_id`;
  await writeShopLog(tx, { shopId: updated!.shopId, actorUserId: actor, action: 'flow.updated', subjectType: 'flow', subjectId: flowId });
  return getFlow(tx, flowId);
}

export async function deleteFlow(tx: Tx, flowId: string, actor: Actor): Promise<void> {
  const [deleted] = await tx<{ shopId: string }[]>`delete from flows where id = ${flowId} returning shop_id`;
  if (!deleted) throw new Problem('not-found', `no flow ${flowId}`);
  await writeShopLog(tx, { shopId: deleted.shopId, actorUserId: actor, action: 'flow.deleted', subjectType: 'flow', subjectId: flowId });
}
