import { PROBLEM_GUIDANCE, PROBLEMS, type ProblemCode } from '../../../domain/kernel/index.js';
import { codeBlock, html, prose, tableHead } from './html.js';
import { pagePath } from './layout.js';
import type { Page } from './site.js';

/** What a client does with each class of status (spec, Errors). */
const STATUS_GROUPS: { statuses: string; advice: string }[] = [
  { statuses: '400, 413, 415, 422', advice: 'The request is wrong: change it before sending it again.' },
  { statuses: '401, 403', advice: 'The key or its permissions: fix them; do not retry in a tight loop.' },
  { statuses: '402', advice: 'The shop’s plan has expired: wait for the renewal.' },
  {
    statuses: '404',
    advice: 'Not there for this key: a missing record, another shop’s record and a chat page outside the key’s pages all look alike.',
  },
  { statuses: '405', advice: 'The path does not take this method: use one the `Allow` header lists.' },
  { statuses: '409', advice: 'A conflict with the record’s state, or an earlier attempt with the same key still running.' },
  { statuses: '429', advice: 'Wait the seconds of `Retry-After`.' },
  { statuses: '5xx', advice: 'Retry with growing back-off, with an `Idempotency-Key` on creations so a retry never duplicates.' },
];

const EXAMPLE = (baseUrl: string) =>
  JSON.stringify(
    {
      type: `${baseUrl}${pagePath('errors')}#validation-failed`,
      title: PROBLEMS['validation-failed'].title,
      status: PROBLEMS['validation-failed'].status,
      code: 'validation-failed',
      detail: 'The request body is invalid',
      errors: [{ path: 'lines.0.quantity', message: 'must be greater than 0' }],
    },
    null,
    2,
  );

const CODES = (Object.keys(PROBLEMS) as ProblemCode[]).sort((a, b) => PROBLEMS[a].status - PROBLEMS[b].status);

/** One section per code, its anchor the code itself (the problem's `type` address). */
function problemSections(codes: readonly ProblemCode[]) {
  return codes.map((code) => {
    const { meaning, action, outside } = PROBLEM_GUIDANCE[code];
    return html`<section class="problem" id="${code}" aria-labelledby="${code}-title">
      <h3 id="${code}-title"><code>${code}</code> <span class="status">${PROBLEMS[code].status} ${PROBLEMS[code].title}</span></h3>
      ${outside ? html`<p class="outside">Answered by ${outside} only.</p>` : ''}
      <p>${prose(meaning)}</p>
      <p><strong>What to do:</strong> ${prose(action)}</p>
    </section> `;
  });
}

export const errors: Page = {
  slug: 'errors',
  title: 'Errors',
  render: (site) =>
    html`<p class="lead">
        Every error of the API is an <code>application/problem+json</code> body (RFC 9457). Its <code>type</code> is the address of its
        code’s entry on this page.
      </p>

      <h2 id="body">The body</h2>
      ${codeBlock(EXAMPLE(site.baseUrl), 'A 400 answer · JSON', 'json')}
      <table>
        ${tableHead('Field', 'Meaning')}
        <tbody>
          <tr>
            <td><code>code</code></td>
            <td>The machine code. <strong>Branch on it</strong>, never on <code>title</code> or <code>detail</code>.</td>
          </tr>
          <tr>
            <td><code>type</code></td>
            <td>This page, at the code’s anchor.</td>
          </tr>
          <tr>
            <td><code>title</code></td>
            <td>A short name, the same for every occurrence of the code.</td>
          </tr>
          <tr>
            <td><code>status</code></td>
            <td>The HTTP status.</td>
          </tr>
          <tr>
            <td><code>detail</code></td>
            <td>For people: what happened this time. Its wording may change.</td>
          </tr>
          <tr>
            <td><code>errors</code></td>
            <td>Only on <code>validation-failed</code> tied to fields: <code>path</code> and <code>message</code> of each.</td>
          </tr>
        </tbody>
      </table>
      <p>
        Some codes add fields, such as <code>matchKeys</code> on <code>match-key-taken</code>. Ignore fields you do not know, and treat a
        code you do not know like the others of its status: new codes may appear within <code>v1</code>.
      </p>

      <h2 id="statuses">By status</h2>
      <table>
        ${tableHead('Status', 'What to do')}
        <tbody>
          ${STATUS_GROUPS.map(
            (group) =>
              html`<tr>
                <td>${group.statuses}</td>
                <td>${prose(group.advice)}</td>
              </tr> `,
          )}
        </tbody>
      </table>

      <h2 id="codes">Every code</h2>
      ${problemSections(CODES.filter((code) => !PROBLEM_GUIDANCE[code].outside))}

      <h2 id="other-codes">Codes of Shopflow’s other endpoints</h2>
      <p>These never come from <code>${site.apiPrefix}</code>; they share the problem codes, and so this page.</p>
      ${problemSections(CODES.filter((code) => PROBLEM_GUIDANCE[code].outside))}`,
};
