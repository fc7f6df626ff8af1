import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Answer, type Body } from '../api/client';
import { catalogueQuery } from '../api/catalogue';
import { useSession } from '../session';
import { navigate } from '../router';
import { Field, ProblemMessage } from '../ui';
import { FlowCanvas } from './flow-canvas';
import { PermissionPicker } from './PermissionPicker';
import { TestRunResult } from './TestRunResult';

type Flow = Answer<'/api/admin/flows/{id}', 'get'>;
type EventType = Body<'/api/admin/flows', 'post'>['eventType'];
type Draft = { name: string; eventType: EventType; pageId: string | null; url: string; permissions: string[]; pageIds: string[] };

const NEW_FLOW: Draft = { name: '', eventType: 'order.created', pageId: null, url: '', permissions: ['pos.orders.read'], pageIds: [] };

/** Builds or edits one flow; a member without automation.flows.manage sees it read-only. */
export function FlowBuilder({ flowId }: { flowId: string | null }) {
  const flow = useQuery({
    queryKey: ['flow', flowId],
    queryFn: () => unwrap(api.GET('/api/admin/flows/{id}', { params: { path: { id: flowId! } } })),
    enabled: flowId !== null,
  });
  const catalogue = useQuery(catalogueQuery);
  if ((flowId && flow.isPending) || catalogue.isPending) return <p className="loading">Loading…</p>;
  if (flow.error || catalogue.error) return <ProblemMessage error={flow.error ?? catalogue.error} />;
  return <Builder saved={flowId ? flow.data! : null} catalogue={catalogue.data!} />;
}

function Builder({ saved, catalogue }: { saved: Flow | null; catalogue: Answer<'/api/admin/catalogue', 'get'> }) {
  const { holds } = useSession();
  const queryClient = useQueryClient();
  const readOnly = !holds('automation.flows.manage');
  const [flow, setFlow] = useState<Flow | null>(saved);
  const [draft, setDraft] = useState<Draft>(saved ? { ...saved, eventType: saved.eventType as EventType } : NEW_FLOW);
  const [secret, setSecret] = useState<string | null>(null);
  const refresh = (next: Flow) => {
    setFlow(next);
    queryClient.setQueryData(['flow', next.id], next);
    void queryClient.invalidateQueries({ queryKey: ['flows'] });
  };
  const path = { params: { path: { id: flow?.id ?? '' } } };

  const save = useMutation({
    mutationFn: async () => {
      const body = { ...draft, pageId: draft.pageId ?? undefined };
      if (!flow) return unwrap(api.POST('/api/admin/flows', { body: { ...body, state: 'draft' } }));
      return { flow: await unwrap(api.PATCH('/api/admin/flows/{id}', { ...path, body })), secret: null };
    },
    onSuccess: (answer) => {
      refresh(answer.flow);
      if (answer.secret) setSecret(answer.secret);
      // The address now names the saved flow, without leaving the screen (the secret is on it).
      window.history.replaceState(null, '', `#/flows/${answer.flow.id}`);
    },
  });
  const rotate = useMutation({
    mutationFn: () => unwrap(api.POST('/api/admin/flows/{id}/secret', path)),
    onSuccess: (answer) => setSecret(answer.secret),
  });
  const switchTo = useMutation({
    mutationFn: (state: 'on' | 'off') => unwrap(api.POST('/api/admin/flows/{id}/state', { ...path, body: { state } })),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/admin/flows/{id}', path)),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['flows'] });
      navigate('/flows');
    },
  });
  const testRun = useMutation({ mutationFn: () => unwrap(api.POST('/api/admin/flows/{id}/test-run', path)) });
  const changeTrigger = ({ eventType, pageId }: { eventType?: string; pageId?: string | null }) => {
    if (eventType === undefined) return setDraft({ ...draft, pageId: pageId ?? null, pageIds: pageId ? [pageId] : [] });
    // A new trigger proposes the permissions its events need, as far as the member holds them.
    const needed = catalogue.eventTypes.find((type) => type.type === eventType)?.readPermissions ?? [];
    setDraft({
      ...draft,
      eventType: eventType as EventType,
      permissions: [...new Set([...draft.permissions, ...needed.filter((permission) => holds(permission))])],
    });
  };
  const error = save.error ?? rotate.error ?? switchTo.error ?? remove.error;

  return (
    <section aria-labelledby="builder-title" className="builder">
      <div className="title-row">
        <h1 id="builder-title">{flow ? flow.name : 'New flow'}</h1>
        {flow && <span className={`badge state-${flow.state}`}>{flow.state}</span>}
        {flow && <a href={`#/flows/${flow.id}/history`}>Delivery history</a>}
      </div>
      {readOnly && <p className="note">You may view flows; changing them needs automation.flows.manage.</p>}
      <Field label="Flow name">
        {(id) => (
          <input
            id={id}
            required
            value={draft.name}
            disabled={readOnly}
            onChange={(event) => setDraft({ ...draft, name: event.target.value })}
          />
        )}
      </Field>
      <FlowCanvas
        trigger={{
          eventType: draft.eventType,
          pageId: draft.pageId,
          eventTypes: catalogue.eventTypes,
          pages: catalogue.pages,
          disabled: readOnly,
          onChange: changeTrigger,
        }}
        httpSend={{
          url: draft.url,
          secret,
          disabled: readOnly,
          onChange: (url) => setDraft({ ...draft, url }),
          onRotate: flow ? () => rotate.mutate() : undefined,
        }}
      />
      <details className="account" open={!flow}>
        <summary>The flow’s account: what its deliveries may carry</summary>
        <PermissionPicker
          catalogue={catalogue}
          permissions={draft.permissions}
          pageIds={draft.pageIds}
          disabled={readOnly}
          onChange={(next) => setDraft({ ...draft, ...next })}
        />
      </details>
      <ProblemMessage error={error} />
      {!readOnly && (
        <div className="actions">
          <button type="button" onClick={() => save.mutate()} disabled={save.isPending}>
            {save.isPending ? 'Saving…' : 'Save'}
          </button>
          {flow && (
            <>
              <button type="button" className="secondary" onClick={() => testRun.mutate()} disabled={testRun.isPending}>
                {testRun.isPending ? 'Test-running…' : 'Test-run'}
              </button>
              <button type="button" className="secondary" onClick={() => switchTo.mutate(flow.state === 'on' ? 'off' : 'on')}>
                {flow.state === 'on' ? 'Switch off' : 'Switch on'}
              </button>
              <button type="button" className="danger" onClick={() => window.confirm(`Delete the flow ${flow.name}?`) && remove.mutate()}>
                Delete
              </button>
            </>
          )}
        </div>
      )}
      <ProblemMessage error={testRun.error} />
      {testRun.data && <TestRunResult run={testRun.data} />}
    </section>
  );
}
