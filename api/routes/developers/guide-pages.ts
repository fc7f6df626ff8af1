import {
  DEFAULT_OVERLAP_HOURS,
  GRANTABLE_PERMISSIONS,
  KEY_PREFIX,
  LEAK_PATTERN,
  MAX_APPLICATIONS_PER_SHOP,
  MAX_LIVE_KEYS,
  MAX_OVERLAP_HOURS,
  PEOPLE_ONLY_PERMISSIONS,
} from '../../../domain/access/index.js';
import { html, tableHead } from './html.js';
import { pagePath } from './layout.js';
import { codeList, errorLink, operationName, sample, type Page, type Site } from './site.js';

export const gettingStarted: Page = {
  slug: '',
  title: 'Getting started',
  render: (site) =>
    html`<p class="lead">
        The Shopflow Open API lets your software work with the data of one shop: orders, products, stock, customers, shipments and chat
        conversations. You call it over HTTPS with the shop’s API key, and the shop’s automation flows send you signed events when something
        changes.
      </p>
      <p>
        This guide explains how the API behaves. The <a href="${site.referencePage}">API reference</a> lists every operation with its
        parameters and answers, from the <a href="${site.documentUrl}">OpenAPI document</a> you can generate a client from.
      </p>

      <h2 id="key">1. Get an API key</h2>
      <p>
        A shop administrator (or a member holding <code>automation.connections.manage</code>) creates the key in the shop’s admin web app,
        under <strong>API connections</strong>: they create a connection application for your integration, choose its permissions (and, for
        chat, its pages), and copy the key. The key is shown once; keep it in your server’s secret store.
      </p>
      <ul>
        <li>A key belongs to one shop. It never reads or writes another shop’s data, even given another shop’s record id.</li>
        <li>
          A key looks like <code>${KEY_PREFIX}</code> followed by 38 letters and digits. Leak scanners can look for
          <code>${LEAK_PATTERN.source}</code>.
        </li>
        <li>A shop has at most ${MAX_APPLICATIONS_PER_SHOP} connection applications, each with at most ${MAX_LIVE_KEYS} live keys.</li>
        <li>The API does not answer cross-origin calls from browsers: call it from your server, never from browser code.</li>
      </ul>

      <h2 id="first-call">2. Make your first call</h2>
      <p>
        Every path is under <code>${site.baseUrl}${site.apiPrefix}</code>. <code>GET /shop</code> succeeds when the key is valid and the
        shop can use the API:
      </p>
      ${sample('first-call.sh')}
      <p>
        It answers the shop (<code>id</code>, <code>slug</code>, <code>name</code>), the key’s <code>application</code> with its
        <code>permissions</code> and chat <code>pageIds</code>, and <code>readOnly</code>: <code>true</code> while the shop’s plan has
        expired, when reads work and writes are refused.
      </p>

      <h2 id="from-code">3. Call it from code</h2>
      <p>The samples of this guide share these few lines: the address, the key, and a refusal turned into an error you can branch on.</p>
      ${sample('api.ts')}

      <h2 id="conventions">Conventions</h2>
      <table>
        ${tableHead('Topic', 'Rule')}
        <tbody>
          <tr>
            <td>Money and quantities</td>
            <td>
              Decimal strings such as <code>"125000"</code> or <code>"1.5"</code>. Keep them as strings or exact decimals, never binary
              floating point. Quantities have at most three decimals.
            </td>
          </tr>
          <tr>
            <td>Time</td>
            <td>ISO 8601 in UTC, for example <code>2026-11-20T08:30:00.000Z</code>.</td>
          </tr>
          <tr>
            <td>Phone numbers</td>
            <td>
              Answered as <code>+84</code> and digits. Sent as <code>0…</code>, <code>84…</code> or <code>+84…</code>; spaces, dots and
              dashes are ignored.
            </td>
          </tr>
          <tr>
            <td>Deletion</td>
            <td>Orders, products and customers are soft-deleted: they carry <code>deletedAt</code>.</td>
          </tr>
          <tr>
            <td>Lists</td>
            <td><code>{ "data": [...], "nextCursor": "…" or null }</code>; see <a href="${pagePath('pagination')}">Pagination</a>.</td>
          </tr>
          <tr>
            <td>Errors</td>
            <td><code>application/problem+json</code> with a machine <code>code</code>; see <a href="${pagePath('errors')}">Errors</a>.</td>
          </tr>
        </tbody>
      </table>

      <h2 id="versioning">Versioning</h2>
      <p>
        The version is in the path: <code>${site.apiPrefix}</code>. Within it these changes may arrive at any time, so write your client to
        take them:
      </p>
      <ul>
        <li>new operations, new response and event fields, new optional parameters: <strong>ignore fields you do not know</strong>;</li>
        <li>new enum values (an order status, an event type): <strong>treat an unknown value as “other”</strong>, do not fail;</li>
        <li>
          new error codes: <strong>branch on <code>code</code></strong
          >, and treat an unknown code like the others of its HTTP status;
        </li>
        <li>other wording of <code>title</code> and <code>detail</code>, another field order, longer identifiers.</li>
      </ul>
      <p>Removing or renaming anything, or changing a type or a meaning, only happens in a new version (<code>/v2</code>).</p>`,
};

/** Each permission a key can hold, and the operations that need it (with others, where they need several). */
function permissionRows(site: Site) {
  return GRANTABLE_PERMISSIONS.map((permission) => {
    const operations = site.operations.filter((operation) => operation.permissions.includes(permission));
    return html`<tr>
      <td><code>${permission}</code></td>
      <td>
        ${
          operations.length > 0
            ? codeList(operations.map(operationName))
            : 'No operation of its own: an extra permission for some fields (below).'
        }
      </td>
    </tr> `;
  });
}

export const authentication: Page = {
  slug: 'authentication',
  title: 'Authentication and permissions',
  render: (site) =>
    html`<p class="lead">Every request carries the shop’s key; the key’s application decides what it may do.</p>

      <h2 id="header">The Authorization header</h2>
      <p>
        Send <code>Authorization: Bearer ${KEY_PREFIX}…</code> on every request to <code>${site.apiPrefix}</code>. A missing or malformed
        header, or a key that is unknown, revoked or expired, is answered 401 ${errorLink('invalid-api-key')}. Such requests count against a
        rate limit of your IP address: do not retry them in a loop.
      </p>
      <p class="note">
        The key goes in that header only. A request with a key anywhere in its URL is refused with 401: treat that key as leaked and rotate
        it.
      </p>

      <h2 id="permissions">Permissions</h2>
      <p>
        The shop chooses the application’s permissions when it creates it, and may change them later. A key may call only what they allow;
        anything else is 403 ${errorLink('insufficient-permission')}, whose <code>detail</code> names what is missing. An application never
        holds more permissions than the person who granted them, and never these, which stay with people:
        ${codeList(PEOPLE_ONLY_PERMISSIONS)}.
      </p>
      <table>
        ${tableHead('Permission', 'Operations that need it')}
        <tbody>
          ${permissionRows(site)}
        </tbody>
      </table>
      <p>
        Any valid key may call ${codeList(site.operations.filter((operation) => operation.permissions.length === 0).map(operationName))}.
      </p>

      <h3 id="field-permissions">Extra permissions for some fields</h3>
      <ul>
        <li>
          An order line’s <code>unitPrice</code> off the variant’s list price, or any discount: <code>pos.orders.price.override</code>.
        </li>
        <li><code>payments</code> when creating an order: <code>pos.orders.payment.record</code>.</li>
        <li>
          Cancelling an order already shipped (from <code>shipped</code>, <code>delivered</code>, <code>paid</code>, <code>returning</code>,
          <code>partially_returned</code> or <code>returned</code>): <code>pos.orders.delete</code>.
        </li>
        <li>Changing <code>handlerUserId</code> in an order edit: <code>pos.orders.assign</code>.</li>
        <li>A product with attribute names or values new to the shop: <code>pos.products.update</code>.</li>
      </ul>
      <p>
        Without them a key still creates orders at list price without discounts or payments, cancels orders not yet shipped, and creates
        products from existing attributes. A missing extra permission refuses the whole request; nothing is silently dropped.
      </p>

      <h3 id="pages">Chat pages</h3>
      <p>
        For chat, the application also carries the pages its creator chose. A key sees and sends only on those pages: another page answers
        404 ${errorLink('not-found')}, as if it did not exist. <code>GET /shop</code> lists them in <code>application.pageIds</code>.
      </p>

      <h2 id="rotation">Rotating and revoking keys</h2>
      <ul>
        <li>
          <strong>Rotation</strong> issues a new key; the old one keeps working for the overlap the shop chooses, 0 to ${MAX_OVERLAP_HOURS}
          hours (${DEFAULT_OVERLAP_HOURS} by default), then gets 401. Deploy the new key within the overlap.
        </li>
        <li>An application has at most ${MAX_LIVE_KEYS} live keys.</li>
        <li><strong>Revocation</strong> takes effect at once: the next request with that key gets 401.</li>
        <li>Keys are not revoked when the person who created them leaves the shop; the shop sees it on the connection screen.</li>
      </ul>

      <h2 id="shop-state">When the shop cannot use the API</h2>
      <table>
        ${tableHead('The shop', 'What you get')}
        <tbody>
          <tr>
            <td>is suspended</td>
            <td>403 ${errorLink('shop-suspended')} on every request.</td>
          </tr>
          <tr>
            <td>has an expired plan</td>
            <td>
              Reads work; writes get 402 ${errorLink('subscription-expired')}. <code>GET /shop</code> says <code>readOnly: true</code>.
            </td>
          </tr>
          <tr>
            <td>has a plan without automation</td>
            <td>403 ${errorLink('automation-not-active')}.</td>
          </tr>
        </tbody>
      </table>`,
};
