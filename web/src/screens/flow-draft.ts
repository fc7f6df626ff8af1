import type { Answer, Body } from '../api/client';

export type Flow = Answer<'/api/admin/flows/{id}', 'get'>;
export type EventType = Body<'/api/admin/flows', 'post'>['eventType'];
type Catalogue = Answer<'/api/admin/catalogue', 'get'>;

/** A flow's state as the shop admin reads it: one whose receiver answered 410 is not "on", it sends nothing. */
export function shownState(flow: Pick<Flow, 'state' | 'httpEnabled'>): 'draft' | 'on' | 'off' | 'stopped' {
  return flow.state === 'on' && !flow.httpEnabled ? 'stopped' : flow.state;
}

/** The flow as the builder shows it, saved or not. */
export interface Draft {
  name: string;
  eventType: EventType;
  pageId: string | null;
  url: string;
  permissions: string[];
  pageIds: string[];
}

export const NEW_FLOW: Draft = {
  name: '',
  eventType: 'order.created',
  pageId: null,
  url: '',
  permissions: ['pos.orders.read'],
  pageIds: [],
};

export function draftOf(flow: Flow): Draft {
  const { name, eventType, pageId, url, permissions, pageIds } = flow;
  return { name, eventType: eventType as EventType, pageId, url, permissions, pageIds };
}

const sorted = (list: string[]) => [...list].sort().join(' ');

/** Whether the screen shows something the saved flow does not (the order of permissions and pages aside). */
export function hasChanges(draft: Draft, saved: Draft): boolean {
  return (
    draft.name !== saved.name ||
    draft.eventType !== saved.eventType ||
    draft.pageId !== saved.pageId ||
    draft.url.trim() !== saved.url ||
    sorted(draft.permissions) !== sorted(saved.permissions) ||
    sorted(draft.pageIds) !== sorted(saved.pageIds)
  );
}

/** A field's problem, by its catalogue entry (flows `errors.*`). */
export type FieldProblem =
  'nameRequired' | 'nameTooLong' | 'urlRequired' | 'urlInvalid' | 'urlNotHttps' | 'urlNotPublic' | 'urlTooLong' | 'pageRequired';
export type FieldProblems = Partial<Record<'name' | 'url' | 'pageId', FieldProblem>>;

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
export function draftProblems(draft: Draft, catalogue: Catalogue, refusedUrl: string | null): FieldProblems {
  const name = draft.name.trim();
  const needsPage = catalogue.eventTypes.find((type) => type.type === draft.eventType)?.needsPage ?? false;
  const url = addressProblem(draft.url) ?? (refusedUrl !== null && draft.url.trim() === refusedUrl ? 'urlNotPublic' : undefined);
  const problems: FieldProblems = {};
  if (name === '') problems.name = 'nameRequired';
  else if (name.length > 255) problems.name = 'nameTooLong';
  if (url) problems.url = url;
  if (needsPage && !draft.pageId) problems.pageId = 'pageRequired';
  return problems;
}

/**
 * A new trigger's permissions: what the old trigger needed and the new one does not is dropped, what
 * the new one needs is added as far as the member holds it (the server refuses more); chat pages go
 * when no chat permission is left.
 */
export function withTrigger(
  draft: Draft,
  eventType: EventType,
  catalogue: Catalogue,
  holds: (permission: string) => boolean,
): { draft: Draft; added: string[]; removed: string[] } {
  const needs = (type: string) => catalogue.eventTypes.find((entry) => entry.type === type)?.readPermissions ?? [];
  const before = needs(draft.eventType);
  const after = needs(eventType);
  const removed = before.filter((permission) => !after.includes(permission) && draft.permissions.includes(permission));
  const added = after.filter((permission) => holds(permission) && !draft.permissions.includes(permission));
  const permissions = [...draft.permissions.filter((permission) => !removed.includes(permission)), ...added];
  const keepsPages = permissions.some((permission) => catalogue.chatPermissions.includes(permission));
  const needsPage = catalogue.eventTypes.find((entry) => entry.type === eventType)?.needsPage ?? false;
  return {
    draft: {
      ...draft,
      eventType,
      permissions,
      pageId: needsPage ? draft.pageId : null,
      pageIds: keepsPages ? draft.pageIds : [],
    },
    added,
    removed,
  };
}
