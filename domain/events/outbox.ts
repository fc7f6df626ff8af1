import { randomFillSync } from 'node:crypto';
import { context, propagation } from '@opentelemetry/api';
import { monotonicFactory } from 'ulidx';
import { canonicalJson } from '../kernel/index.js';
import { writeShopLogs } from '../access/index.js';
import type { Tx } from '../kernel/index.js';

/**
 * The ULIDs' random source: bytes drawn from the system 4 KiB at a time. ulidx's own makes a system
 * call per character (16 per id); each byte / 256 falls in [0, 1), uniform over the 32 letters.
 */
export function pooledRandom(poolBytes = 4096): () => number {
  const pool = new Uint8Array(poolBytes);
  let next = poolBytes;
  return () => {
    if (next === poolBytes) {
      randomFillSync(pool);
      next = 0;
    }
    return pool[next++]! / 256;
  };
}

const ulid = monotonicFactory(pooledRandom());

/** Collections whose items are diffed field by field, named `<collection>.<field>` (spec, Events). */
const ITEMIZED_COLLECTIONS = new Set(['variants']);
/** Audit times that move with every write and are not a change of their own. */
const IGNORED_FIELDS = new Set(['updatedAt']);

export type Snapshot = Record<string, unknown>;

export interface Changes {
  fields: string[];
  status?: { from: unknown; to: unknown };
}

const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);

function itemizedChanges(name: string, before: unknown, after: unknown): string[] {
  if (!Array.isArray(before) || !Array.isArray(after)) return same(before, after) ? [] : [name];
  const beforeById = new Map(before.map((item: Snapshot) => [item.id, item]));
  const changed = new Set<string>();
  for (const item of after as Snapshot[]) {
    const previous = beforeById.get(item.id);
    if (!previous) {
      changed.add(name);
      continue;
    }
    for (const field of new Set([...Object.keys(previous), ...Object.keys(item)])) {
      if (!same(previous[field], item[field])) changed.add(`${name}.${field}`);
    }
  }
  if (before.length !== after.length) changed.add(name);
  return [...changed];
}

/**
 * What changed between two snapshots in the resource's `GET` shape: `fields` in the order of the
 * `after` shape, `status` as {from, to} when it changed; null when no `data` field changed.
 */
export function diffSnapshots(beforeShape: object, afterShape: object): Changes | null {
  // Every resource shape is a plain JSON object: read it field by field.
  const before = beforeShape as Snapshot;
  const after = afterShape as Snapshot;
  const fields: string[] = [];
  for (const name of new Set([...Object.keys(after), ...Object.keys(before)])) {
    if (IGNORED_FIELDS.has(name)) continue;
    if (ITEMIZED_COLLECTIONS.has(name)) fields.push(...itemizedChanges(name, before[name], after[name]));
    else if (!same(before[name], after[name])) fields.push(name);
  }
  if (fields.length === 0) return null;
  return 'status' in after && !same(before.status, after.status)
    ? { fields, status: { from: before.status, to: after.status } }
    : { fields };
}

export function newEventId(): string {
  return `evt_${ulid()}`;
}

export interface EventInput {
  shopId: string;
  type: string;
  resourceId: string;
  /** The resource in its `GET` shape. */
  data: object;
  changes?: Changes;
}

/** The active span's W3C `traceparent` (telemetry/tracing.ts registers the propagator); null while tracing is off. */
function currentTraceParent(): string | null {
  const carrier: { traceparent?: string } = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? null;
}

/**
 * Inserts one outbox row, in the caller's transaction, with the trace of the work that wrote it (when
 * tracing is on), which the relay continues. Returns the event id.
 */
export async function writeEvent(tx: Tx, event: EventInput): Promise<string> {
  const id = newEventId();
  await tx`
    insert into events (id, shop_id, type, resource_id, changes, data, trace_parent)
    values (${id}, ${event.shopId}, ${event.type}, ${event.resourceId}, ${event.changes ? tx.json(event.changes as never) : null}, ${tx.json(event.data as never)}, ${currentTraceParent()})`;
  return id;
}

/**
 * The emission rules for an edit: `<resource>.updated` with its changes when a `data` field
 * changed, nothing otherwise. Returns the event id, or null when nothing was emitted.
 */
export async function recordUpdate(
  tx: Tx,
  input: { shopId: string; resource: string; resourceId: string; before: object; after: object },
): Promise<string | null> {
  const type = `${input.resource}.updated`;
  const changes = diffSnapshots(input.before, input.after);
  if (changes) return writeEvent(tx, { shopId: input.shopId, type, resourceId: input.resourceId, data: input.after, changes });
  // Nothing in `data` changed: each flow listening stops at its Trigger block, and the shop log says so.
  // listening_flows() is the flows module's (db/migrations/20261122000022_listening_flows.sql): events cannot import flows.
  const listening = await tx<{ id: string }[]>`select id from listening_flows(${type})`;
  await writeShopLogs(
    tx,
    listening.map((flow) => ({
      shopId: input.shopId,
      actorUserId: null,
      action: 'flow.run_skipped',
      subjectType: 'flow',
      subjectId: flow.id,
      details: { eventType: type, resourceId: input.resourceId, reason: 'the change touched no field of the event data' },
    })),
  );
  return null;
}
