import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import {
  Background,
  BaseEdge,
  EdgeLabelRenderer,
  getBezierPath,
  Handle,
  Position,
  ReactFlow,
  useReactFlow,
  useStore,
  type Edge,
  type EdgeProps,
  type Node,
  type NodeChange,
  type NodeProps,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import './conditions.css';
import { Field, ShownOnce } from '../ui';
import { ConditionBlock, type ConditionData, type ConditionSettings } from './ConditionBlock';
import { NEW_CONDITION, type ConditionDraft } from './condition-draft';
import { TriggerBlock, type TriggerData } from './TriggerBlock';

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
      <TriggerBlock data={data} />
      <Handle type="source" position={Position.Right} isConnectable={false} />
    </>
  );
}

function ConditionNode({ data }: NodeProps<Node<ConditionData>>) {
  return (
    <>
      <Handle type="target" position={Position.Left} isConnectable={false} />
      <ConditionBlock data={data} />
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

const nodeTypes = { trigger: TriggerNode, condition: ConditionNode, httpSend: HttpSendNode };

interface AddConditionData extends Record<string, unknown> {
  onAdd: () => void;
}

/** The direct wire from the Trigger to the HTTP-send, with the button that puts a Condition block on it. */
function AddConditionEdge({ id, data, ...ends }: EdgeProps<Edge<AddConditionData>>) {
  const { t } = useTranslation('conditions');
  const [path, labelX, labelY] = getBezierPath(ends);
  return (
    <>
      <BaseEdge id={id} path={path} />
      {data && (
        <EdgeLabelRenderer>
          <button
            type="button"
            className="secondary add-condition nodrag nopan"
            style={{ transform: `translate(-50%, -50%) translate(${labelX}px, ${labelY}px)` }}
            onClick={data.onAdd}
          >
            {t('add')}
          </button>
        </EdgeLabelRenderer>
      )}
    </>
  );
}

const edgeTypes = { addCondition: AddConditionEdge };

/** At most life size, the blocks in full view: the canvas is as tall as the tallest block. */
const FIT = { padding: '16px', maxZoom: 1 } as const;
const FIT_MARGIN = 40;

/**
 * Fits the blocks in view again when one grows or shrinks (the secret shown once, a field's error, the
 * chat page, a rule), a block comes or goes, or the canvas grows with them, without a new canvas: the
 * field being typed in keeps the focus.
 */
function FitWhenResized({ blocks }: { blocks: string }) {
  const { fitView } = useReactFlow();
  const height = useStore((state) => state.height);
  useEffect(() => {
    // The next frame: the canvas has its new size by then.
    const frame = requestAnimationFrame(() => void fitView(FIT));
    return () => cancelAnimationFrame(frame);
  }, [blocks, height, fitView]);
  return null;
}

type Size = { width: number; height: number };

/**
 * Each block's measured size, kept across renders: the blocks are new objects on every render (their
 * fields change), and a block given without its size would be measured, and hidden, all over again.
 */
function useBlockSizes(): [Record<string, Size>, (changes: NodeChange[]) => void] {
  const [sizes, setSizes] = useState<Record<string, Size>>({});
  const measured = (changes: NodeChange[]) => {
    const sized = changes.flatMap((change) =>
      change.type === 'dimensions' && change.dimensions ? [[change.id, change.dimensions] as const] : [],
    );
    if (sized.length > 0) setSizes((before) => ({ ...before, ...Object.fromEntries(sized) }));
  };
  return [sizes, measured];
}

/** Below this width the blocks stand one under the other, at full size, instead of on a canvas. */
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

/** Where the blocks stand on the canvas, side by side, left to right. */
const X = { trigger: 0, condition: 390, httpSend: 780, httpSendWired: 560 };

/**
 * The flow on a canvas: the Trigger block wired to the Condition block, if there is one, wired to the
 * HTTP-send block (side by side; stacked on a phone). `condition` null: the flow has none; one can be
 * added unless the screen is read-only.
 */
export function FlowCanvas({
  trigger,
  condition,
  httpSend,
}: {
  trigger: TriggerData;
  condition: ConditionSettings & { condition: ConditionDraft | null };
  httpSend: HttpSendData;
}) {
  const { t } = useTranslation('flows');
  const { t: tConditions } = useTranslation('conditions');
  const narrow = useNarrow();
  const [sizes, measured] = useBlockSizes();
  const conditionData = condition.condition ? { ...condition, condition: condition.condition } : null;
  const add = condition.disabled ? undefined : () => condition.onChange(NEW_CONDITION);
  if (narrow)
    return (
      <div className="canvas-stack" role="group" aria-label={t('canvas.label')}>
        <TriggerBlock data={trigger} />
        <div className="then" aria-hidden="true">
          ↓ {t('canvas.then')}
        </div>
        {conditionData && (
          <>
            <ConditionBlock data={conditionData} />
            <div className="then" aria-hidden="true">
              ↓ {t('canvas.then')}
            </div>
          </>
        )}
        {!conditionData && add && (
          <button type="button" className="secondary add-condition" onClick={add}>
            {tConditions('add')}
          </button>
        )}
        <HttpSend data={httpSend} />
      </div>
    );
  const block = (id: string, type: keyof typeof nodeTypes, x: number, data: Record<string, unknown>): Node => ({
    id,
    type,
    position: { x, y: 0 },
    data,
    draggable: false,
    selectable: false,
    measured: sizes[id],
  });
  const nodes: Node[] = conditionData
    ? [block('trigger', 'trigger', X.trigger, trigger), block('condition', 'condition', X.condition, conditionData)]
    : [block('trigger', 'trigger', X.trigger, trigger)];
  nodes.push(block('http', 'httpSend', conditionData ? X.httpSend : X.httpSendWired, httpSend));
  const edges: Edge[] = conditionData
    ? [
        { id: 'trigger-condition', source: 'trigger', target: 'condition', animated: true },
        { id: 'condition-http', source: 'condition', target: 'http', animated: true },
      ]
    : [{ id: 'trigger-http', source: 'trigger', target: 'http', animated: true, type: 'addCondition', data: add && { onAdd: add } }];
  // The canvas is as tall as the tallest block: every block at life size.
  const tallest = Math.max(0, ...nodes.map((node) => node.measured?.height ?? 0));
  return (
    <div className="canvas" role="group" aria-label={t('canvas.label')} style={tallest > 0 ? { height: tallest + FIT_MARGIN } : undefined}>
      <ReactFlow
        nodes={nodes}
        onNodesChange={measured}
        edges={edges}
        nodeTypes={nodeTypes}
        edgeTypes={edgeTypes}
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
        <FitWhenResized blocks={nodes.map((node) => `${node.id}:${node.measured?.height ?? 0}`).join()} />
      </ReactFlow>
    </div>
  );
}
