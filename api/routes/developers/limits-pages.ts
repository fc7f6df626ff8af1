import {
  ABANDONED_AFTER_SECONDS,
  IDEMPOTENCY_WINDOW_HOURS,
  RATE_LIMITS,
  RATE_WINDOW_SECONDS,
  type RateCounter,
} from '../../../domain/access/index.js';
import { duration, html, tableHead } from './html.js';
import { pagePath } from './layout.js';
import { codeList, errorLink, operationName, operationsTaking, sample, type Page, type Site } from './site.js';

/** Who shares each counter (domain/access/rate-limits.ts says the same of RATE_LIMITS). */
const COUNTER_SCOPE: Record<RateCounter, string> = {
  general: 'per key',
  messages: 'per key',
  shipments: 'per shop, shared by all its keys',
};

function counterRows(site: Site) {
  return (Object.keys(RATE_LIMITS) as RateCounter[]).map((counter) => {
    const operations = site.operations.filter((operation) => operation.counter === counter);
    return html`<tr>
      <td>${counter}</td>
      <td>${RATE_LIMITS[counter]}</td>
      <td>${COUNTER_SCOPE[counter]}</td>
      <td>${counter === 'general' ? 'Every other operation' : codeList(operations.map(operationName))}</td>
    </tr> `;
  });
}

export const rateLimits: Page = {
  slug: 'rate-limits',
  title: 'Rate limits',
  render: (site) =>
    html`<p class="lead">
        Requests are counted in fixed windows of ${duration(RATE_WINDOW_SECONDS)}, each window starting on the minute. Every request counts
        in exactly one of three counters.
      </p>

      <h2 id="counters">The counters</h2>
      <table>
        ${tableHead('Counter', 'Requests a window', 'Counted', 'Operations')}
        <tbody>
          ${counterRows(site)}
        </tbody>
      </table>
      <p>Requests with a missing or invalid key are counted by client IP address, against the general limit.</p>

      <h2 id="headers">The headers</h2>
      <p>Every answer under <code>${site.apiPrefix}</code>, refusals included, carries the state of the counter the request counted in:</p>
      <table>
        ${tableHead('Header', 'Value')}
        <tbody>
          <tr>
            <td><code>X-RateLimit-Limit</code></td>
            <td>The counter’s limit for the window.</td>
          </tr>
          <tr>
            <td><code>X-RateLimit-Remaining</code></td>
            <td>Requests left in the window.</td>
          </tr>
          <tr>
            <td><code>X-RateLimit-Reset</code></td>
            <td>Seconds until the window refreshes. A number of seconds, not a timestamp.</td>
          </tr>
          <tr>
            <td><code>Retry-After</code></td>
            <td>On 429 only: seconds to wait before sending again.</td>
          </tr>
        </tbody>
      </table>

      <h2 id="over-the-limit">Over the limit</h2>
      <p>
        A request over the limit is answered 429 ${errorLink('rate-limited')} with <code>Retry-After</code>. Wait that long, then send it
        again; the sample on <a href="${pagePath('idempotency')}#sample">Idempotency</a> does so. To avoid it, spread your calls over the
        window using <code>X-RateLimit-Remaining</code> and <code>X-RateLimit-Reset</code>, and prefer
        <a href="${pagePath('webhooks')}">webhooks</a> and <a href="${pagePath('sync')}">sync passes</a> to polling single records.
      </p>
      <p class="note">
        Chat platforms also cap sending per page, shared by every key using the page. That is not your key’s quota: it is answered 503
        ${errorLink('channel-unavailable')}.
      </p>`,
};

export const idempotency: Page = {
  slug: 'idempotency',
  title: 'Idempotency',
  render: (site) =>
    html`<p class="lead">
        A creation sent with an <code>Idempotency-Key</code> happens once, however many times you send it: retrying after a time-out or a
        server error never creates a second order or customer.
      </p>

      <h2 id="operations">Where it applies</h2>
      <p>These operations take the <code>Idempotency-Key</code> header:</p>
      <ul>
        ${operationsTaking(site, 'header', 'Idempotency-Key').map((operation) => html`<li><code>${operation}</code></li> `)}
      </ul>

      <h2 id="rules">The rules</h2>
      <ul>
        <li>Use a new key, a UUID for example, for each new operation, and the same key for every retry of it. A key is 1 to 255 bytes.</li>
        <li>Keys belong to your application: two integrations of the same shop never collide.</li>
        <li>A request is the same when its method, path and JSON body are the same (the order of keys in the body does not matter).</li>
      </ul>
      <table>
        ${tableHead('You send the key again…', 'You get')}
        <tbody>
          <tr>
            <td>with the same request, within ${IDEMPOTENCY_WINDOW_HOURS} hours of the first</td>
            <td>
              The first answer again, success or 4xx refusal, with the header <code>Idempotent-Replayed: true</code>. Nothing runs a second
              time.
            </td>
          </tr>
          <tr>
            <td>while the first request is still running</td>
            <td>
              409 ${errorLink('idempotency-key-in-progress')} at once, with <code>Retry-After: 1</code>. Send the same request again after
              it.
            </td>
          </tr>
          <tr>
            <td>with a different body</td>
            <td>422 ${errorLink('idempotency-key-reused')}.</td>
          </tr>
          <tr>
            <td>after a 5xx answer</td>
            <td>A new attempt: server errors are not stored, so the retry runs.</td>
          </tr>
          <tr>
            <td>after ${IDEMPOTENCY_WINDOW_HOURS} hours</td>
            <td>A new operation: the key is free again.</td>
          </tr>
        </tbody>
      </table>
      <p>
        If the server stopped while running your request, the key stays busy for ${duration(ABANDONED_AFTER_SECONDS)}; then the next
        identical request runs it.
      </p>

      <h2 id="sample">Sending a creation safely</h2>
      <p>
        One key for every attempt; wait what <code>Retry-After</code> says on 429 and on 409 <code>idempotency-key-in-progress</code>, back
        off otherwise:
      </p>
      ${sample('create-once.ts')}`,
};
