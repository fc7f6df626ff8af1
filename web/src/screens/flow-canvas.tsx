import { Background, Handle, Position, ReactFlow, type Edge, type Node, type NodeProps } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import type { Answer } from '../api/client';
import { Field, ShownOnce } from '../ui';

type EventTypes = Answer<'/api/admin/catalogue', 'get'>['eventTypes'];
type Pages = Answer<'/api/admin/catalogue', 'get'>['pages'];

export interface TriggerData extends Record<string, unknown> {
  eventType: string;
  pageId: string | null;
  eventTypes: EventTypes;
  pages: Pages;
  disabled: boolean;
  onChange: (change: { eventType?: string; pageId?: string | null }) => void;
}

export interface HttpSendData extends Record<string, unknown> {
  url: string;
  secret: string | null;
  disabled: boolean;
  /** Absent until the flow is saved. */
  onRotate?: () => void;
  onChange: (url: string) => void;
}

/** The Trigger block: an event type of the catalogue, and the chat page of a message event. */
function TriggerBlock({ data }: NodeProps<Node<TriggerData>>) {
  const needsPage = data.eventTypes.find((type) => type.type === data.eventType)?.needsPage ?? false;
  return (
    <div className="block nodrag" role="group" aria-label="Trigger block">
      <h2>Trigger</h2>
      <Field label="Event type">
        {(id) => (
          <select
            id={id}
            value={data.eventType}
            disabled={data.disabled}
            onChange={(event) => data.onChange({ eventType: event.target.value })}
          >
            {data.eventTypes.map((type) => (
              <option key={type.type}>{type.type}</option>
            ))}
          </select>
        )}
      </Field>
      {needsPage && (
        <Field label="Chat page" hint="Message events belong to one page">
          {(id, hint) => (
            <select
              id={id}
              aria-describedby={hint}
              value={data.pageId ?? ''}
              disabled={data.disabled}
              onChange={(event) => data.onChange({ pageId: event.target.value || null })}
            >
              <option value="">Choose a page</option>
              {data.pages.map((page) => (
                <option key={page.id} value={page.id}>
                  {page.name}
                </option>
              ))}
            </select>
          )}
        </Field>
      )}
      <Handle type="source" position={Position.Right} isConnectable={false} />
    </div>
  );
}

/** The HTTP-send block: POST to an HTTPS address, signed with the flow's secret. */
function HttpSendBlock({ data }: NodeProps<Node<HttpSendData>>) {
  return (
    <div className="block nodrag" role="group" aria-label="HTTP-send block">
      <Handle type="target" position={Position.Left} isConnectable={false} />
      <h2>HTTP send</h2>
      <p className="method">
        Method <code>POST</code>
      </p>
      <Field label="HTTPS address" hint="https:// only">
        {(id, hint) => (
          <input
            id={id}
            type="url"
            aria-describedby={hint}
            required
            pattern="https://.*"
            placeholder="https://example.com/hooks"
            value={data.url}
            disabled={data.disabled}
            onChange={(event) => data.onChange(event.target.value)}
          />
        )}
      </Field>
      {data.secret && <ShownOnce label="Signing secret" value={data.secret} />}
      {data.onRotate && !data.disabled && (
        <button type="button" className="secondary" onClick={data.onRotate}>
          Rotate signing secret
        </button>
      )}
    </div>
  );
}

const nodeTypes = { trigger: TriggerBlock, httpSend: HttpSendBlock };

/** The flow on a canvas: the Trigger block wired to the HTTP-send block (side by side, or stacked on a phone). */
export function FlowCanvas({ trigger, httpSend }: { trigger: TriggerData; httpSend: HttpSendData }) {
  const narrow = window.innerWidth < 720;
  const nodes: Node[] = [
    { id: 'trigger', type: 'trigger', position: { x: 0, y: 0 }, data: trigger, draggable: false, selectable: false },
    {
      id: 'http',
      type: 'httpSend',
      position: narrow ? { x: 0, y: 300 } : { x: 380, y: 0 },
      data: httpSend,
      draggable: false,
      selectable: false,
    },
  ];
  const edges: Edge[] = [{ id: 'trigger-http', source: 'trigger', target: 'http', animated: true }];
  return (
    <div className="canvas" aria-label="Flow canvas">
      <ReactFlow
        // Shown once, the secret makes the HTTP-send block taller: a new canvas fits it in view again.
        key={httpSend.secret === null ? 'without-secret' : 'with-secret'}
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        fitView
        fitViewOptions={{ padding: 0.1 }}
        panOnDrag={false}
        zoomOnScroll={false}
        preventScrolling={false}
        proOptions={{ hideAttribution: true }}
      >
        <Background />
      </ReactFlow>
    </div>
  );
}
