import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Background, Handle, Position, ReactFlow, useReactFlow, type Edge, type Node, type NodeProps } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import type { Answer } from '../api/client';
import { Field, ShownOnce } from '../ui';
import { useDeliveryWords } from './delivery-words';

type EventTypes = Answer<'/api/admin/catalogue', 'get'>['eventTypes'];
type Pages = Answer<'/api/admin/catalogue', 'get'>['pages'];

export interface TriggerData extends Record<string, unknown> {
  eventType: string;
  pageId: string | null;
  eventTypes: EventTypes;
  pages: Pages;
  disabled: boolean;
  /** Beside the chat page, in plain words. */
  pageError?: string | undefined;
  onChange: (change: { eventType?: string; pageId?: string | null }) => void;
}

export interface HttpSendData extends Record<string, unknown> {
  url: string;
  secret: string | null;
  disabled: boolean;
  /** Beside the address, in plain words. */
  error?: string | undefined;
  /** Absent until the flow is saved. */
  onRotate?: () => void;
  onChange: (url: string) => void;
}

/** The Trigger block: an event type of the catalogue (its plain name, its code beside it), and the chat page of a message event. */
function Trigger({ data }: { data: TriggerData }) {
  const { t } = useTranslation('flows');
  const words = useDeliveryWords();
  const needsPage = data.eventTypes.find((type) => type.type === data.eventType)?.needsPage ?? false;
  return (
    <div className="block nodrag" role="group" aria-label={t('canvas.trigger')}>
      <h2>{t('canvas.triggerTitle')}</h2>
      <Field label={t('canvas.eventType')}>
        {(id) => (
          <select
            id={id}
            value={data.eventType}
            disabled={data.disabled}
            onChange={(event) => data.onChange({ eventType: event.target.value })}
          >
            {data.eventTypes.map((type) => (
              <option key={type.type} value={type.type}>
                {`${words.eventType(type.type)} (${type.type})`}
              </option>
            ))}
          </select>
        )}
      </Field>
      {needsPage && (
        <Field label={t('canvas.chatPage')} hint={t('canvas.chatPageHint')} error={data.pageError}>
          {(id, hint, invalid) => (
            <select
              id={id}
              aria-describedby={hint}
              aria-invalid={invalid || undefined}
              value={data.pageId ?? ''}
              disabled={data.disabled}
              onChange={(event) => data.onChange({ pageId: event.target.value || null })}
            >
              <option value="">{t('canvas.choosePage')}</option>
              {data.pages.map((page) => (
                <option key={page.id} value={page.id}>
                  {page.name}
                </option>
              ))}
            </select>
          )}
        </Field>
      )}
    </div>
  );
}

/** The HTTP-send block: POST to an HTTPS address, signed with the flow's secret. */
function HttpSend({ data }: { data: HttpSendData }) {
  const { t } = useTranslation('flows');
  return (
    <div className="block nodrag" role="group" aria-label={t('canvas.httpSend')}>
      <h2>{t('canvas.httpSendTitle')}</h2>
      <p className="method">
        {t('canvas.method')} <code>POST</code>
      </p>
      <Field label={t('canvas.address')} hint={t('canvas.addressHint')} error={data.error}>
        {(id, hint, invalid) => (
          <input
            id={id}
            type="url"
            inputMode="url"
            aria-describedby={hint}
            aria-invalid={invalid || undefined}
            placeholder="https://example.com/hooks"
            value={data.url}
            disabled={data.disabled}
            onChange={(event) => data.onChange(event.target.value)}
          />
        )}
      </Field>
      {data.secret && <ShownOnce label={t('canvas.secret')} value={data.secret} />}
      {data.onRotate && !data.disabled && (
        <button type="button" className="secondary" onClick={data.onRotate}>
          {t('canvas.rotate')}
        </button>
      )}
    </div>
  );
}

function TriggerNode({ data }: NodeProps<Node<TriggerData>>) {
  return (
    <>
      <Trigger data={data} />
      <Handle type="source" position={Position.Right} isConnectable={false} />
    </>
  );
}

function HttpSendNode({ data }: NodeProps<Node<HttpSendData>>) {
  return (
    <>
      <Handle type="target" position={Position.Left} isConnectable={false} />
      <HttpSend data={data} />
    </>
  );
}

const nodeTypes = { trigger: TriggerNode, httpSend: HttpSendNode };

const FIT = { padding: 0.1, maxZoom: 1 };

/** Fits the blocks in view again when one grows (the secret shown once, a field's error, the chat page), without a new canvas: the field being typed in keeps the focus. */
function FitWhenGrown({ fit }: { fit: string }) {
  const { fitView } = useReactFlow();
  useEffect(() => {
    // The next frame: the grown block has been measured by then.
    const frame = requestAnimationFrame(() => void fitView(FIT));
    return () => cancelAnimationFrame(frame);
  }, [fit, fitView]);
  return null;
}

/** Below this width the blocks stand one under the other, at full size, instead of on a scaled-down canvas. */
const NARROW = '(max-width: 719px)';

function useNarrow(): boolean {
  const [narrow, setNarrow] = useState(() => window.matchMedia(NARROW).matches);
  useEffect(() => {
    const query = window.matchMedia(NARROW);
    const changed = () => setNarrow(query.matches);
    query.addEventListener('change', changed);
    return () => query.removeEventListener('change', changed);
  }, []);
  return narrow;
}

/** The flow on a canvas: the Trigger block wired to the HTTP-send block (side by side; stacked on a phone). */
export function FlowCanvas({ trigger, httpSend }: { trigger: TriggerData; httpSend: HttpSendData }) {
  const { t } = useTranslation('flows');
  const narrow = useNarrow();
  if (narrow)
    return (
      <div className="canvas-stack" role="group" aria-label={t('canvas.label')}>
        <Trigger data={trigger} />
        <div className="then" aria-hidden="true">
          ↓ {t('canvas.then')}
        </div>
        <HttpSend data={httpSend} />
      </div>
    );
  const nodes: Node[] = [
    { id: 'trigger', type: 'trigger', position: { x: 0, y: 0 }, data: trigger, draggable: false, selectable: false },
    { id: 'http', type: 'httpSend', position: { x: 380, y: 0 }, data: httpSend, draggable: false, selectable: false },
  ];
  const edges: Edge[] = [{ id: 'trigger-http', source: 'trigger', target: 'http', animated: true }];
  const fit = [
    httpSend.secret !== null,
    Boolean(httpSend.error),
    Boolean(trigger.pageError),
    trigger.eventType.startsWith('message.'),
  ].join();
  return (
    <div className="canvas" role="group" aria-label={t('canvas.label')}>
      <ReactFlow
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        fitView
        fitViewOptions={FIT}
        nodesFocusable={false}
        edgesFocusable={false}
        // The canvas's own words for assistive technology, in the app's language.
        ariaLabelConfig={{
          'node.a11yDescription.default': t('canvas.a11yNode'),
          'node.a11yDescription.keyboardDisabled': t('canvas.a11yNode'),
          'edge.a11yDescription.default': t('canvas.a11yEdge'),
          'handle.ariaLabel': t('canvas.handle'),
        }}
        panOnDrag={false}
        zoomOnScroll={false}
        preventScrolling={false}
        proOptions={{ hideAttribution: true }}
      >
        <Background />
        <FitWhenGrown fit={fit} />
      </ReactFlow>
    </div>
  );
}
