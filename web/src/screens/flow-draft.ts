import type { Answer, Body } from '../api/client';
import { conditionDraftOf, conditionOf, conditionProblems, setKey, type ConditionDraft, type ConditionField } from './condition-draft';

export type Flow = Answer<'/api/admin/flows/{id}', 'get'>;
export type EventType = NonNullable<Body<'/api/admin/flows', 'post'>['eventType']>;
type Choices = Answer<'/api/admin/choices', 'get'>;

/** A flow's state as the shop admin reads it: one whose receiver answered 410 is not "on", it sends nothing. */
export function shownState(flow: Pick<Flow, 'state' | 'httpEnabled'>): 'draft' | 'on' | 'off' | 'stopped' {
  return flow.state === 'on' && !flow.httpEnabled ? 'stopped' : flow.state;
}

/** The flow as the builder shows it, saved or not. */
export interface Draft {
  name: string;
  eventTypes: EventType[];
  condition: ConditionDraft | null;
  pageId: string | null;
  url: string;
  permissions: string[];
  pageIds: string[];
}

export const NEW_FLOW: Draft = {
  name: '',
  eventTypes: ['order.created'],
  condition: null,
  pageId: null,
  url: '',
  permissions: ['pos.orders.read'],
  pageIds: [],
};

export function draftOf(flow: Flow): Draft {
  const { name, eventTypes, condition, pageId, url, permissions, pageIds } = flow;
  return { name, eventTypes: eventTypes as EventType[], condition: conditionDraftOf(condition), pageId, url, permissions, pageIds };
}

/** The draft as the API takes it (a new flow, an edit, a test-run). */
export function flowBody(draft: Draft, fields: Map<string, ConditionField>) {
  const { name, eventTypes, condition, pageId, url, permissions, pageIds } = draft;
  return {
    name: name.trim(),
    eventTypes,
    condition: condition && conditionOf(condition, fields),
    pageId,
    url: url.trim(),
    permissions,
    pageIds,
  };
}

/** Whether the screen shows something the saved flow does not (the order of permissions and pages aside). */
export function hasChanges(draft: Draft, saved: Draft): boolean {
  return (
    draft.name !== saved.name ||
    setKey(draft.eventTypes) !== setKey(saved.eventTypes) ||
    JSON.stringify(draft.condition) !== JSON.stringify(saved.condition) ||
    draft.pageId !== saved.pageId ||
    draft.url.trim() !== saved.url ||
    setKey(draft.permissions) !== setKey(saved.permissions) ||
    setKey(draft.pageIds) !== setKey(saved.pageIds)
  );
}

/** A field's problem, by its message (flows `errors.*`). */
export type FieldProblem =
  | 'nameRequired'
  | 'nameTooLong'
  | 'urlRequired'
  | 'urlInvalid'
  | 'urlNotHttps'
  | 'urlNotPublic'
  | 'urlTooLong'
  | 'pageRequired'
  | 'typesRequired'
  | 'conditionIncomplete';
export type FieldProblems = Partial<Record<'name' | 'url' | 'pageId' | 'eventTypes' | 'condition', FieldProblem>>;

/** Whether a message event is among the types: it belongs to a chat page. */
export const needsPageFor = (types: readonly string[], eventTypes: Choices['eventTypes']) =>
  eventTypes.some((entry) => entry.needsPage && types.includes(entry.type));

/** The address's problem the screen can tell by itself; whether it is a public address only the server knows (as at delivery). */
export function addressProblem(url: string): FieldProblem | undefined {
  const address = url.trim();
  if (address === '') return 'urlRequired';
  if (address.length > 2000) return 'urlTooLong';
  let parsed: URL;
  try {
    parsed = new URL(address);
  } catch {
    return 'urlInvalid';
  }
  if (parsed.protocol !== 'https:') return parsed.protocol === 'http:' ? 'urlNotHttps' : 'urlInvalid';
  return undefined;
}

/** The draft's problems before anything is sent; `refusedUrl` is the address the server refused as not public. */
export function draftProblems(
  draft: Draft,
  choices: Choices,
  fields: Map<string, ConditionField>,
  refusedUrl: string | null,
): FieldProblems {
  const name = draft.name.trim();
  const url = addressProblem(draft.url) ?? (refusedUrl !== null && draft.url.trim() === refusedUrl ? 'urlNotPublic' : undefined);
  const problems: FieldProblems = {};
  if (name === '') problems.name = 'nameRequired';
  else if (name.length > 255) problems.name = 'nameTooLong';
  if (url) problems.url = url;
  if (needsPageFor(draft.eventTypes, choices.eventTypes) && !draft.pageId) problems.pageId = 'pageRequired';
  if (draft.eventTypes.length === 0) problems.eventTypes = 'typesRequired';
  if (conditionProblems(draft.condition, fields, choices.conditionLimits).some((rule) => Object.keys(rule).length > 0))
    problems.condition = 'conditionIncomplete';
  return problems;
}

/**
 * A new set of trigger types' permissions: what the old types needed and the new ones do not is
 * dropped, what the new ones need is added as far as the member holds it (the server refuses more);
 * chat pages go when no chat permission is left, the trigger's page when no type needs one.
 */
export function withTrigger(
  draft: Draft,
  eventTypes: EventType[],
  choices: Choices,
  holds: (permission: string) => boolean,
): { draft: Draft; added: string[]; removed: string[] } {
  const needs = (types: readonly string[]) => [
    ...new Set(choices.eventTypes.filter((entry) => types.includes(entry.type)).flatMap((entry) => entry.readPermissions)),
  ];
  const before = needs(draft.eventTypes);
  const after = needs(eventTypes);
  const removed = before.filter((permission) => !after.includes(permission) && draft.permissions.includes(permission));
  const added = after.filter((permission) => holds(permission) && !draft.permissions.includes(permission));
  const permissions = [...draft.permissions.filter((permission) => !removed.includes(permission)), ...added];
  const keepsPages = permissions.some((permission) => choices.chatPermissions.includes(permission));
  return {
    draft: {
      ...draft,
      eventTypes,
      permissions,
      pageId: needsPageFor(eventTypes, choices.eventTypes) ? draft.pageId : null,
      pageIds: keepsPages ? draft.pageIds : [],
    },
    added,
    removed,
  };
}
