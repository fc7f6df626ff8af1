import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ProblemError, unwrap, type Answer } from '../api/client';
import { choicesQuery } from '../api/choices';
import { useSession } from '../session';
import { navigate } from '../router';
import { ConfirmButton, Field, ProblemMessage } from '../ui';
import { useDeliveryWords } from './delivery-words';
import { FlowCanvas } from './flow-canvas';
import {
  draftOf,
  draftProblems,
  flowBody,
  hasChanges,
  NEW_FLOW,
  shownState,
  withTrigger,
  type Draft,
  type EventType,
  type Flow,
} from './flow-draft';
import { conditionFields, conditionProblems, isRuleError, refusedRules, standingRefusals, type RefusedRules } from './condition-draft';
import { ConditionVerdict } from './ConditionVerdict';
import { PermissionName, PermissionPicker, usePermissionName } from './PermissionPicker';
import { TestRunResult } from './TestRunResult';
import { FlowHealth } from './FlowHealth';
import './flows.css';

type Choices = Answer<'/api/admin/choices', 'get'>;

/**
 * What a new flow's builder hands to the builder of the flow it saved (a new screen, keyed by the
 * flow's id): the secret to show once and when it was saved. Taken once, then forgotten.
 */
const handedOver = new Map<string, { secret: string; savedAt: string }>();

/** Builds or edits one flow; a member without automation.flows.manage sees it read-only. */
export function FlowBuilder({ flowId }: { flowId: string | null }) {
  const { t } = useTranslation();
  const flow = useQuery({
    queryKey: ['flow', flowId],
    queryFn: () => unwrap(api.GET('/api/admin/flows/{id}', { params: { path: { id: flowId! } } })),
    enabled: flowId !== null,
  });
  const choices = useQuery(choicesQuery);
  if ((flowId && flow.isPending) || choices.isPending) return <p className="loading">{t('loading')}</p>;
  if (flow.error || choices.error)
    return <ProblemMessage error={flow.error ?? choices.error} onRetry={() => void (flow.error ? flow.refetch() : choices.refetch())} />;
  return <Builder saved={flowId ? flow.data! : null} choices={choices.data!} />;
}

function Builder({ saved, choices }: { saved: Flow | null; choices: Choices }) {
  const { holds } = useSession();
  const { t } = useTranslation('flows');
  const words = useDeliveryWords();
  const permissionName = usePermissionName();
  const queryClient = useQueryClient();
  const readOnly = !holds('automation.flows.manage');
  const [handed] = useState(() => (saved ? handedOver.get(saved.id) : undefined));
  useEffect(() => void (saved && handedOver.delete(saved.id)), [saved]);
  const [flow, setFlow] = useState<Flow | null>(saved);
  const [draft, setDraft] = useState<Draft>(saved ? draftOf(saved) : NEW_FLOW);
  const [secret, setSecret] = useState<string | null>(handed?.secret ?? null);
  const [savedAt, setSavedAt] = useState<string | null>(handed?.savedAt ?? null);
  const [showProblems, setShowProblems] = useState(false);
  const [refusedUrl, setRefusedUrl] = useState<string | null>(null);
  const [refused, setRefused] = useState<RefusedRules | null>(null);
  const [testType, setTestType] = useState<EventType | null>(null);
  const [triggerNote, setTriggerNote] = useState<{ added: string[]; removed: string[] } | null>(null);
  const [resumed, setResumed] = useState(false);
  const dirty = hasChanges(draft, flow ? draftOf(flow) : NEW_FLOW);
  const fields = conditionFields(draft.eventTypes, choices);
  const problems = draftProblems(draft, choices, fields, refusedUrl);
  const shown = showProblems ? problems : {};
  const refusals = standingRefusals(refused, draft.eventTypes, draft.condition);
  const tested = testType && draft.eventTypes.includes(testType) ? testType : draft.eventTypes[0];
  const path = { params: { path: { id: flow?.id ?? '' } } };
  const refresh = (next: Flow) => {
    setFlow(next);
    queryClient.setQueryData(['flow', next.id], next);
    void queryClient.invalidateQueries({ queryKey: ['flows'] });
  };
  /** The server refused the address as not public (as a delivery would), or rules: said beside the field or rule. */
  const refusedFields = (error: unknown, body: Draft) => {
    setRefused(refusedRules(error, body.eventTypes, body.condition));
    if (!(error instanceof ProblemError && error.errors.some((item) => item.path === 'url'))) return;
    setRefusedUrl(body.url.trim());
    setShowProblems(true);
  };
  const bodyOf = (body: Draft) => flowBody(body, conditionFields(body.eventTypes, choices));

  const save = useMutation({
    mutationFn: async (body: Draft) => {
      const sent = bodyOf(body);
      // The route decides, not what was saved since: a new flow's form only ever creates.
      if (!saved) return unwrap(api.POST('/api/admin/flows', { body: { ...sent, state: 'draft' } }));
      return { flow: await unwrap(api.PATCH('/api/admin/flows/{id}', { ...path, body: sent })), secret: null };
    },
    onSuccess: (answer) => {
      testRun.reset();
      const at = new Date().toISOString();
      if (!saved) {
        // The saved flow gets its own screen (the app keys the builder by the route's id); the secret goes with it.
        if (answer.secret) handedOver.set(answer.flow.id, { secret: answer.secret, savedAt: at });
        queryClient.setQueryData(['flow', answer.flow.id], answer.flow);
        void queryClient.invalidateQueries({ queryKey: ['flows'] });
        window.location.replace(`#/flows/${answer.flow.id}`);
        return;
      }
      refresh(answer.flow);
      setDraft(draftOf(answer.flow));
      setRefused(null);
      setSavedAt(at);
    },
    onError: refusedFields,
  });
  const rotate = useMutation({
    mutationFn: () => unwrap(api.POST('/api/admin/flows/{id}/secret', path)),
    onSuccess: (answer) => setSecret(answer.secret),
  });
  const switchTo = useMutation({
    mutationFn: (state: 'on' | 'off') => unwrap(api.POST('/api/admin/flows/{id}/state', { ...path, body: { state } })),
    onSuccess: (next) => {
      setResumed(flow !== null && !flow.httpEnabled && next.httpEnabled);
      refresh(next);
    },
  });
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/admin/flows/{id}', path)),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['flows'] });
      navigate('/flows');
    },
  });
  // Empty: the event type's made-up example; an id: that real record (still marked as a test).
  const [recordId, setRecordId] = useState('');
  const testRun = useMutation({
    // What is on screen is tested, unsaved edits included: the server tests it without saving it.
    mutationFn: ({ body, eventType }: { body: Draft; eventType: EventType }) => {
      const { name, eventTypes, condition, pageId, url, permissions } = bodyOf(body);
      const onScreen = { name: name || undefined, eventTypes, eventType, condition, pageId, url, permissions };
      return unwrap(api.POST('/api/admin/flows/{id}/test-run', { ...path, body: { ...onScreen, ...(recordId ? { recordId } : {}) } }));
    },
    onError: (error, { body }) => refusedFields(error, body),
  });

  /** Any edit: what was said of the saved flow and of the last test-run no longer holds. */
  const edit = (next: Draft) => {
    setDraft(next);
    setSavedAt(null);
    setResumed(false);
    testRun.reset();
  };
  const changeTrigger = ({ eventTypes, pageId }: { eventTypes?: EventType[]; pageId?: string | null }) => {
    if (eventTypes === undefined) return edit({ ...draft, pageId: pageId ?? null, pageIds: pageId ? [pageId] : [] });
    const changed = withTrigger(draft, eventTypes, choices, (permission) => holds(permission));
    setTriggerNote(changed.added.length + changed.removed.length > 0 ? changed : null);
    edit(changed.draft);
  };
  const attempt = (run: (body: Draft) => void, fields: (keyof typeof problems)[]) => {
    setShowProblems(true);
    if (fields.some((field) => problems[field])) return;
    run(draft);
  };
  const problemWords = (field: keyof typeof problems) => {
    const problem = shown[field];
    return problem ? t(`errors.${problem}`) : undefined;
  };
  // What is said beside a field is not said again under the form.
  const unplaced = (error: unknown) =>
    error instanceof ProblemError && error.errors.some((item) => item.path === 'url' || isRuleError(item.path)) ? null : error;
  const recordAbsent = (error: unknown) =>
    error instanceof ProblemError &&
    error.code === 'validation-failed' &&
    (error.message.startsWith('recordId:') || error.errors.some((item) => item.path === 'recordId'));
  const flowWords = (problem: ProblemError) =>
    problem.code === 'insufficient-permission' || problem.code === 'limit-reached' ? t(`problems.${problem.code}`) : undefined;
  const state = flow ? shownState(flow) : null;

  return (
    <section aria-labelledby="builder-title" className="builder">
      <div className="title-row">
        <h1 id="builder-title">{flow ? flow.name : t('builder.newTitle')}</h1>
        {state && <span className={`badge state-${state}`}>{t(`states.${state}`)}</span>}
        {dirty && !readOnly && <span className="badge dirty">{t('builder.unsaved')}</span>}
        {flow && <a href={`#/flows/${flow.id}/history`}>{t('builder.history')}</a>}
      </div>
      {readOnly && <p className="note">{t('builder.readOnly', { permission: permissionName('automation.flows.manage') })}</p>}
      {flow && !flow.httpEnabled && (
        <section className="stopped-banner" aria-labelledby="stopped-title">
          <h2 id="stopped-title">{t('builder.stoppedTitle')}</h2>
          <p>{t('builder.stopped')}</p>
          {flow.state !== 'on' && <p>{t('builder.stoppedOff')}</p>}
          {!readOnly && flow.state === 'on' && (
            <button type="button" onClick={() => switchTo.mutate('on')} disabled={switchTo.isPending}>
              {t('builder.resume')}
            </button>
          )}
        </section>
      )}
      {resumed && (
        <p role="status" className="saved-note">
          {t('builder.resumed')}
        </p>
      )}
      <Field label={t('builder.name')} error={problemWords('name')}>
        {(id, describedBy, invalid) => (
          <input
            id={id}
            required
            aria-describedby={describedBy}
            aria-invalid={invalid || undefined}
            value={draft.name}
            disabled={readOnly}
            onChange={(event) => edit({ ...draft, name: event.target.value })}
          />
        )}
      </Field>
      <FlowCanvas
        trigger={{
          chosen: draft.eventTypes,
          pageId: draft.pageId,
          eventTypes: choices.eventTypes,
          pages: choices.pages,
          disabled: readOnly,
          typesError: problemWords('eventTypes'),
          pageError: problemWords('pageId'),
          onChange: changeTrigger,
        }}
        condition={{
          condition: draft.condition,
          fields,
          eventTypes: draft.eventTypes,
          problems: showProblems ? conditionProblems(draft.condition, fields, choices.conditionLimits) : [],
          limits: choices.conditionLimits,
          error: problemWords('condition'),
          refusals,
          disabled: readOnly,
          onChange: (condition) => edit({ ...draft, condition }),
        }}
        httpSend={{
          url: draft.url,
          secret,
          disabled: readOnly,
          error: problemWords('url'),
          onChange: (url) => edit({ ...draft, url }),
          onRotate: flow ? () => rotate.mutate() : undefined,
        }}
      />
      {triggerNote && (
        <div role="status" className="change-note">
          {(['added', 'removed'] as const).map((change) =>
            triggerNote[change].length === 0 ? null : (
              <p key={change}>
                {t(change === 'added' ? 'builder.permissionsAdded' : 'builder.permissionsRemoved')}{' '}
                {triggerNote[change].map((code, index) => (
                  <span key={code}>
                    {index > 0 && ', '}
                    <PermissionName code={code} />
                  </span>
                ))}
              </p>
            ),
          )}
        </div>
      )}
      <details className="account" open={!flow}>
        <summary>{t('builder.account')}</summary>
        <PermissionPicker
          choices={choices}
          permissions={draft.permissions}
          pageIds={draft.pageIds}
          disabled={readOnly}
          onChange={(next) => edit({ ...draft, ...next })}
        />
      </details>
      {((showProblems && Object.keys(problems).length > 0) || refusals.some(Boolean)) && (
        <p role="alert" className="field-error">
          {t('builder.fixFields')}
        </p>
      )}
      <ProblemMessage error={unplaced(save.error) ?? rotate.error ?? switchTo.error ?? remove.error} words={flowWords} />
      {savedAt && !dirty && (
        <p role="status" className="saved-note">
          {t('builder.savedAt', { time: words.when(savedAt) })}
        </p>
      )}
      {flow && !readOnly && draft.eventTypes.length > 1 && (
        <Field label={t('testType', { ns: 'conditions' })}>
          {(id) => (
            <select
              id={id}
              value={tested}
              onChange={(event) => {
                // The last result was of another type: it no longer says what a test-run would.
                setTestType(event.target.value as EventType);
                testRun.reset();
              }}
            >
              {draft.eventTypes.map((type) => (
                <option key={type} value={type}>
                  {`${words.eventType(type)} (${type})`}
                </option>
              ))}
            </select>
          )}
        </Field>
      )}
      {flow && !readOnly && (
        <Field
          label={t('builder.testRecord')}
          hint={t('builder.testRecordHint')}
          error={recordAbsent(testRun.error) ? t('problems.recordAbsent') : undefined}
        >
          {(id, describedBy, invalid) => (
            <input
              id={id}
              aria-describedby={describedBy}
              aria-invalid={invalid || undefined}
              value={recordId}
              onChange={(event) => setRecordId(event.target.value.trim())}
            />
          )}
        </Field>
      )}
      {!readOnly && (
        <div className="actions">
          <button
            type="button"
            onClick={() => attempt((body) => save.mutate(body), ['name', 'url', 'pageId', 'eventTypes', 'condition'])}
            disabled={save.isPending}
          >
            {save.isPending ? t('builder.saving') : t('builder.save')}
          </button>
          {flow && (
            <>
              <button
                type="button"
                className="secondary"
                aria-describedby="test-run-note"
                onClick={() => attempt((body) => testRun.mutate({ body, eventType: tested! }), ['url', 'eventTypes', 'condition'])}
                disabled={testRun.isPending}
              >
                {testRun.isPending ? t('builder.testRunning') : t('builder.testRun')}
              </button>
              <button type="button" className="secondary" onClick={() => switchTo.mutate(flow.state === 'on' ? 'off' : 'on')}>
                {flow.state === 'on' ? t('builder.switchOff') : t('builder.switchOn')}
              </button>
              <ConfirmButton
                question={t('builder.confirmDelete', { name: flow.name })}
                confirm={t('builder.delete')}
                onConfirm={() => remove.mutate()}
              >
                {t('builder.delete')}
              </ConfirmButton>
            </>
          )}
        </div>
      )}
      {flow && !readOnly && (
        <p id="test-run-note" className="note">
          {t('builder.testRunNote')}
        </p>
      )}
      <ProblemMessage
        error={recordAbsent(testRun.error) ? null : unplaced(testRun.error)}
        words={flowWords}
        onRetry={() => testRun.mutate(testRun.variables!)}
      />
      {testRun.data && (
        <TestRunResult run={testRun.data}>
          <ConditionVerdict
            eventType={testRun.variables.eventType}
            condition={testRun.variables.body.condition}
            verdict={testRun.data.condition}
          />
        </TestRunResult>
      )}
      {flow && <FlowHealth flowId={flow.id} />}
    </section>
  );
}
