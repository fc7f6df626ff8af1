import { GRANTABLE_PERMISSIONS } from '../../../domain/access/index.js';
import { envelope, EVENT_READ_PERMISSIONS, EVENT_TYPES, type EventType } from '../../../domain/events/index.js';
import { ATTEMPT_TIMEOUT_MS, CONNECT_TIMEOUT_MS, EVENT_EXAMPLES, EXAMPLE_SHOP, SECRET_OVERLAP_HOURS } from '../../../domain/flows/index.js';
import { DEFAULT_RETRY_DELAYS_MS, JITTER_RATIO } from '../../../workflows/deliveries/delivery-starter.js';
import { codeBlock, duration, html, prose, tableHead } from './html.js';
import { pagePath } from './layout.js';
import { codeList, sample, type Page, type Site } from './site.js';

/** An example event id per type: opaque, `evt_` and a ULID, as the outbox makes them. */
const exampleId = (index: number) => `evt_01JDAQ4M7Z3R8K2N5P6W9X0Y${String(index).padStart(2, '0')}`;

/** The envelope exactly as a delivery carries it (`envelope()`), for an account that may read every field. */
function exampleEnvelope(type: EventType, index: number): string {
  const event = { ...EVENT_EXAMPLES[type], id: exampleId(index), type };
  return JSON.stringify(JSON.parse(envelope(event, EXAMPLE_SHOP, GRANTABLE_PERMISSIONS)), null, 2);
}

/** What the event is and carries, as the document's webhook says it (its first paragraph). */
const eventDescription = (site: Site, type: EventType) => site.document.webhooks?.[type]?.post?.description?.split('\n\n')[0] ?? '';

function eventSections(site: Site) {
  return EVENT_TYPES.map(
    (type, index) => html`<section class="event" aria-labelledby="${type}">
<h3 id="${type}"><code>${type}</code></h3>
<p>${prose(eventDescription(site, type))}</p>
<p>The flow’s account needs ${codeList(EVENT_READ_PERMISSIONS[type], ' and ')}.</p>
<details${index === 0 ? html` open` : ''}><summary>Example envelope of <code>${type}</code></summary>
${codeBlock(exampleEnvelope(type, index), `${type} · JSON`, 'json')}
</details>
</section>
`,
  );
}

const SECOND = 1000;
const totalRetrySeconds = DEFAULT_RETRY_DELAYS_MS.reduce((sum, delay) => sum + delay, 0) / SECOND;

function scheduleRows() {
  let elapsed = 0;
  return DEFAULT_RETRY_DELAYS_MS.map((delay, index) => {
    elapsed += delay / SECOND;
    return html`<tr>
      <td>${index + 2}</td>
      <td>${duration(delay / SECOND)}</td>
      <td>${duration(elapsed)}</td>
    </tr> `;
  });
}

export const webhooks: Page = {
  slug: 'webhooks',
  title: 'Webhooks',
  render: (site) =>
    html`<p class="lead">
        The shop’s automation flows send you its events as they happen: a signed <code>POST</code> of a JSON envelope to your HTTPS address,
        following <a href="https://www.standardwebhooks.com/">Standard Webhooks</a>.
      </p>

      <h2 id="flows">Receiving events</h2>
      <ul>
        <li>
          The shop builds a flow in its automation application: a <strong>Trigger</strong> block with one or several event types (and, for
          message events, the chat page) wired to an <strong>HTTP-send</strong> block with your address. The HTTP-send block shows the
          flow’s <strong>signing secret</strong>, <code>whsec_…</code>: your receiver needs it.
        </li>
        <li>The address must be <code>https</code> on a public IP address.</li>
        <li>
          A flow runs under its own account and sends only what that account may read: an event whose read permission it lacks is never
          sent, and order lines carry <code>variantCode</code>, <code>variantName</code> and <code>productName</code> only with
          <code>pos.products.read</code>.
        </li>
        <li>
          Webhooks are the real-time path. Run a <a href="${pagePath('sync')}">sync pass</a> as well, to catch what a long outage of your
          receiver may have missed.
        </li>
      </ul>

      <h2 id="several-types">One flow for several event types</h2>
      <p>
        An order sync needs <code>order.created</code>, <code>order.updated</code>, <code>order.status_changed</code> and
        <code>order.deleted</code>: ask the shop for <strong>one flow</strong> whose Trigger lists all four. You get one address and one
        signing secret; each event is still its own delivery, with its own <code>webhook-id</code>, and the envelope’s <code>type</code>
        tells them apart. The flow’s account needs the read permission of every type it lists (the builder grants them by default): an event
        of a type whose permission was taken away is not sent. A flow listing a message type also names its chat page. Types can be added to
        or removed from a flow later without a new secret; one-type flows work as before.
      </p>

      <h2 id="conditions">Conditions</h2>
      <p>
        A flow may carry a <strong>Condition</strong> block between its Trigger and its HTTP-send block: rules on the envelope, all or any
        of which must hold, for example “<code>changes.status.to</code> is <code>shipped</code> and <code>data.salesChannelName</code> is
        Facebook” or “<code>data.totalAmount</code> ≥ 1,000,000”. An event the condition turns away is not sent at all (the shop log records
        the skipped run): you receive only the events you asked for, and the <code>webhook-id</code> of those you receive is the same as
        without a condition. Rules read only what the flow’s account may read, so a condition reveals nothing the flow could not send. Keep
        your <a href="${pagePath('sync')}">sync pass</a>: it does not filter, and it is how you catch what a condition changed while you
        were not listening.
      </p>

      <h2 id="envelope">The envelope</h2>
      <table>
        ${tableHead('Field', 'Meaning')}
        <tbody>
          <tr>
            <td><code>id</code></td>
            <td>
              The event id: <code>evt_</code> and at most 68 characters, opaque (not a UUID). The same in every flow that receives the
              event, and not the delivery id <code>webhook-id</code>.
            </td>
          </tr>
          <tr>
            <td><code>type</code></td>
            <td>The event type, below.</td>
          </tr>
          <tr>
            <td><code>apiVersion</code></td>
            <td><code>v1</code>.</td>
          </tr>
          <tr>
            <td><code>createdAt</code></td>
            <td>When the event occurred. Order events by it: deliveries arrive in any order.</td>
          </tr>
          <tr>
            <td><code>shop</code></td>
            <td><code>{ id, slug }</code>.</td>
          </tr>
          <tr>
            <td><code>test</code></td>
            <td><code>true</code> on a <a href="#test-events">test event</a> only; real events do not carry it.</td>
          </tr>
          <tr>
            <td><code>changes</code></td>
            <td>
              On <code>*.updated</code> and <code>*.status_changed</code> only. <code>fields</code> names the changed fields of
              <code>data</code> (<code>shippingFee</code>; a variant field as <code>variants.price</code>; <code>contacts</code>,
              <code>addresses</code>, <code>images</code> or <code>events</code> for those collections). <code>status</code>, when the
              status changed, is <code>{ from, to }</code>. No other old values: keep your own copy if you need them.
            </td>
          </tr>
          <tr>
            <td><code>data</code></td>
            <td>The record, in the shape its <code>GET</code> answers in the <a href="${site.referencePage}">API reference</a>.</td>
          </tr>
        </tbody>
      </table>

      <h2 id="events">Event types</h2>
      <p>
        Creating a record emits only its <code>*.created</code>. An <code>*.updated</code> comes only when a field of
        <code>data</code> changed, so it always has <code>changes</code>; a change to something <code>data</code> does not show sends
        nothing. New event types and new <code>data</code> fields may appear within <code>v1</code>: ignore what you do not know.
      </p>
      ${eventSections(site)}

      <h2 id="verify">Verifying the signature</h2>
      <p>Every delivery carries three headers:</p>
      <table>
        ${tableHead('Header', 'Value')}
        <tbody>
          <tr>
            <td><code>webhook-id</code></td>
            <td>
              The delivery id, <code>msg_…</code>: the same on every attempt and on a resend. <strong>De-duplicate by it</strong> (by the
              envelope <code>id</code> when several flows send you the same event).
            </td>
          </tr>
          <tr>
            <td><code>webhook-timestamp</code></td>
            <td>Unix seconds when this attempt was signed.</td>
          </tr>
          <tr>
            <td><code>webhook-signature</code></td>
            <td>
              <code>v1,</code> and the base64 HMAC-SHA256 of <code>&lt;webhook-id&gt;.&lt;webhook-timestamp&gt;.&lt;body&gt;</code>, keyed
              with the secret’s bytes (the base64 after <code>whsec_</code>). Several signatures, space-separated, while a secret is being
              rotated.
            </td>
          </tr>
        </tbody>
      </table>
      <p>
        Verify against the <strong>raw body</strong>, before parsing it, and refuse a timestamp more than 5 minutes from your clock: the
        Standard Webhooks libraries do both. Then answer 2xx quickly and do slow work afterwards.
      </p>
      <p>
        <strong>Rotating the secret.</strong> The shop can give the HTTP-send block a new secret; the old one keeps signing beside it for
        ${SECRET_OVERLAP_HOURS} hours, so each delivery then carries two signatures and either secret verifies it. Move your receiver to the
        new secret within that time.
      </p>

      <h3 id="verify-typescript">TypeScript</h3>
      <p><code>npm install standardwebhooks</code>, then:</p>
      ${sample('webhook-receiver.ts')}
      <h3 id="verify-python">Python</h3>
      <p><code>pip install standardwebhooks</code>, then:</p>
      ${sample('webhook_receiver.py')}
      <h3 id="verify-go">Go</h3>
      ${sample('go/go.mod')} ${sample('go/main.go')}

      <h2 id="retries">Answers and retries</h2>
      <ul>
        <li>
          <strong>Delivered</strong>: any 2xx within ${ATTEMPT_TIMEOUT_MS / SECOND} s (${CONNECT_TIMEOUT_MS / SECOND} s to connect). The
          body of your answer is not read.
        </li>
        <li>
          <strong>410 Gone</strong> stops this delivery and switches the flow’s HTTP-send block off (the shop sees it in its log). Answer it
          only when you want the flow to stop.
        </li>
        <li>
          <strong>Anything else</strong> is attempted again: other 4xx, 5xx, a redirect (redirects are not followed), no connection, no
          answer in time.
        </li>
      </ul>
      <p>
        After the first attempt, which is immediate, the waits are (each ±${Math.round(JITTER_RATIO * 100)} %, about
        ${duration(totalRetrySeconds)} in all):
      </p>
      <table>
        ${tableHead('Attempt', 'Wait before it', 'Since the first attempt')}
        <tbody>
          ${scheduleRows()}
        </tbody>
      </table>
      <p>
        On a 429 or 503 with <code>Retry-After</code> the wait is the longer of the two, never more than
        ${duration(Math.max(...DEFAULT_RETRY_DELAYS_MS) / SECOND)}. Every attempt has its own <code>webhook-timestamp</code> and signature;
        <code>webhook-id</code> stays. After the last attempt the delivery has failed: the shop sees it in the flow’s history and can send
        it again, with the same <code>webhook-id</code>.
      </p>

      <h2 id="test-events">Test events</h2>
      <p>
        The flow builder’s <strong>Test-run</strong> sends one delivery of the trigger’s event type to the address on screen, through the
        same path, signed the same way, and shows the shop your answer. It is attempted once, without retries, and is kept apart from real
        deliveries in the history. Its envelope is a new event (its own <code>id</code> and <code>webhook-id</code>) marked
        <code>"test": true</code>, a field real events never carry. Its <code>data</code> is the made-up example of that event type shown on
        this page, with no customer’s real data, unless the person running it chooses one of the shop’s records by its id (which needs the
        permission to read that data, for them and for the flow’s account): then it is that record, still marked as a test. Answer a test
        event as any other, and keep its data out of your own records.
      </p>`,
};
