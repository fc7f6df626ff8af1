import {
  DEFAULT_LIMIT,
  DEFAULT_RECOMPUTE_CEILING_SECONDS,
  MAX_LIMIT,
  MAX_RECOMPUTE_CEILING_SECONDS,
  SAFETY_MARGIN_SECONDS,
  SYNC_OVERLAP_MINUTES,
} from '../../../domain/kernel/index.js';
import { duration, html } from './html.js';
import { pagePath } from './layout.js';
import { codeList, errorLink, operationsTaking, sample, type Page } from './site.js';

/** The `updatedSince` safety delay: the shop's recompute ceiling plus the margin (domain/kernel/listing.ts). */
const DEFAULT_DELAY = DEFAULT_RECOMPUTE_CEILING_SECONDS + SAFETY_MARGIN_SECONDS;
const LONGEST_DELAY = MAX_RECOMPUTE_CEILING_SECONDS + SAFETY_MARGIN_SECONDS;

export const sync: Page = {
  slug: 'sync',
  title: 'Sync with updatedSince',
  render: (site) =>
    html`<p class="lead">
        Webhooks tell you about changes as they happen. A regular sync pass with <code>updatedSince</code> catches whatever they missed: a
        receiver that was down longer than the retries, a flow switched off, a bug on your side. Run one at start and then every few
        minutes.
      </p>

      <h2 id="how">How a pass works</h2>
      <ol>
        <li>
          Keep a <strong>mark</strong> per list: the latest <code>updatedAt</code> you have applied (for stock <code>stockChangedAt</code>,
          for conversations <code>lastMessageAt</code>). The first pass has none and reads everything.
        </li>
        <li>
          Ask for the records changed since the mark <strong>minus ${SYNC_OVERLAP_MINUTES} minutes</strong>, page by page (<code
            >updatedSince</code
          >
          is inclusive). Orders, products, customers, shipments and stock come oldest change first.
        </li>
        <li>
          Apply each record by <code>id</code> (an upsert): the overlap sends some records again, and applying one twice must be harmless.
        </li>
        <li>When every page is applied, store the latest mark seen. Never store a cursor: it is only for paging within a pass.</li>
      </ol>

      <h2 id="safety-delay">The safety delay</h2>
      <p>
        With <code>updatedSince</code>, a list returns only records changed longer ago than its safety delay:
        <strong>${duration(DEFAULT_DELAY)}</strong> by default. It is the shop’s recompute ceiling
        (${duration(DEFAULT_RECOMPUTE_CEILING_SECONDS)} unless the shop changed it, at most ${duration(MAX_RECOMPUTE_CEILING_SECONDS)}) plus
        ${duration(SAFETY_MARGIN_SECONDS)}, so it is never longer than <strong>${duration(LONGEST_DELAY)}</strong>. A change written with a
        time slightly in the past therefore cannot land behind a mark you have already passed. Without <code>updatedSince</code> there is no
        delay.
      </p>
      <p>
        A record changed during the delay shows up in a later pass. The <strong>${SYNC_OVERLAP_MINUTES}-minute overlap</strong> is longer
        than the longest delay, so starting each pass that far before the mark never loses a record.
      </p>

      <h2 id="deleted">Deleted records</h2>
      <ul>
        <li>
          Send <code>includeDeleted=true</code> where a list takes it (${codeList(operationsTaking(site, 'query', 'includeDeleted'))}):
          otherwise deletions are invisible. A deleted record has <code>deletedAt</code>.
        </li>
        <li>Shipments are never listed once deleted; a cancelled shipment stays, with <code>status</code> <code>cancelled</code>.</li>
        <li>A stock row leaves the list when its variant, product or warehouse is deleted.</li>
      </ul>

      <h2 id="what-moves">What moves the mark</h2>
      <ul>
        <li>
          Changes to a customer’s phones, e-mails or addresses, and to a product’s images, raise that record’s <code>updatedAt</code>.
        </li>
        <li>A stock row’s <code>stockChangedAt</code> moves only when <code>quantity</code> or <code>inTransit</code> changes.</li>
      </ul>
      <p>These lists take <code>updatedSince</code>: ${codeList(operationsTaking(site, 'query', 'updatedSince'))}.</p>

      <h2 id="sample">A sync pass in code</h2>
      <p>
        Built on the <a href="${pagePath('pagination')}#sample">pagination sample</a>; it restarts the pass on
        ${errorLink('invalid-cursor')}:
      </p>
      ${sample('sync.ts')}`,
};

export const pagination: Page = {
  slug: 'pagination',
  title: 'Pagination',
  render: (site) =>
    html`<p class="lead">Lists that can grow answer one page at a time, with a cursor to the next.</p>

      <h2 id="pages">Pages and cursors</h2>
      <ul>
        <li><code>limit</code> sets the page size: 1 to ${MAX_LIMIT}, ${DEFAULT_LIMIT} by default.</li>
        <li>
          The answer is <code>{ "data": [...], "nextCursor": "…" }</code>. <code>nextCursor</code> is <code>null</code> on the last page.
        </li>
        <li>
          Send it back as <code>cursor</code>, with <strong>every other parameter unchanged</strong>, for the next page. A cursor is signed
          and bound to its list and parameters: change one, alter the cursor, or make one up, and you get 400
          ${errorLink('invalid-cursor')}. Then start again from the first page.
        </li>
        <li>
          A cursor is only for paging within one pass: never store it. To continue later, keep a mark and use
          <a href="${pagePath('sync')}"><code>updatedSince</code></a
          >.
        </li>
      </ul>
      <p>
        Paginated lists: ${codeList(operationsTaking(site, 'query', 'cursor'))}. Small lists (categories, warehouses, tags, chat pages,
        staff, roles, geographic units) come whole in <code>data</code>, without <code>nextCursor</code>.
      </p>

      <h2 id="sample">Reading every page</h2>
      ${sample('pagination.ts')}`,
};
