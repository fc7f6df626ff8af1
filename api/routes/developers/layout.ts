import { html, type Html } from './html.js';

export const SITE_PREFIX = '/developers';
export const STYLESHEET = `${SITE_PREFIX}/site.css`;

/** Its own style only, no script, no frame: the site is static text. */
export const SITE_CSP = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const STYLE = `
:root { --text: #1b1f24; --muted: #57606a; --line: #d0d7de; --code: #f4f6f8; --link: #0b57c4; --accent: #0b57c4; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.6 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--text); background: #fff; }
a { color: var(--link); }
a:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
.top { display: flex; gap: 1.5rem; align-items: baseline; padding: .75rem 1.5rem; border-bottom: 1px solid var(--line); }
.top .brand { font-weight: 700; color: var(--text); text-decoration: none; font-size: 1.1rem; }
.layout { display: grid; grid-template-columns: 15rem minmax(0, 1fr); max-width: 78rem; margin: 0 auto; }
nav.guide { padding: 1.5rem 1rem 1.5rem 1.5rem; border-right: 1px solid var(--line); }
nav.guide ul { list-style: none; margin: 0; padding: 0; position: sticky; top: 1rem; }
nav.guide a { display: block; padding: .3rem .5rem; border-radius: 4px; color: var(--text); text-decoration: none; }
nav.guide a:hover { background: var(--code); }
nav.guide a[aria-current="page"] { background: #e7effb; color: var(--accent); font-weight: 600; }
main { padding: 1.5rem 2.5rem 4rem; min-width: 0; }
main > * { max-width: 52rem; }
h1 { font-size: 2rem; line-height: 1.25; margin: .5rem 0 1rem; }
h2 { font-size: 1.4rem; margin: 2.5rem 0 .75rem; padding-top: .5rem; border-top: 1px solid var(--line); }
h3 { font-size: 1.1rem; margin: 1.75rem 0 .5rem; }
p.lead { font-size: 1.1rem; color: var(--muted); }
code { font: .9em/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: var(--code); padding: .1em .3em; border-radius: 3px; }
pre code { background: none; padding: 0; }
figure.code { margin: 1rem 0 1.5rem; border: 1px solid var(--line); border-radius: 6px; overflow: hidden; max-width: 62rem; }
figure.code figcaption { font-size: .85rem; color: var(--muted); padding: .35rem .75rem; border-bottom: 1px solid var(--line); background: #fafbfc; }
figure.code pre { margin: 0; padding: .75rem; overflow-x: auto; background: var(--code); font-size: .9rem; }
table { border-collapse: collapse; margin: 1rem 0 1.5rem; width: 100%; font-size: .95rem; }
th, td { text-align: left; vertical-align: top; padding: .45rem .6rem; border-bottom: 1px solid var(--line); }
th { background: #fafbfc; font-weight: 600; }
td code { white-space: nowrap; }
details { margin: .5rem 0 1rem; }
details summary { cursor: pointer; color: var(--link); }
.note { border-left: 4px solid var(--accent); background: #f1f6fd; padding: .6rem 1rem; margin: 1rem 0; }
section.problem { border-top: 1px solid var(--line); padding-top: .25rem; }
section.problem:target { background: #fff8c5; }
section.problem .outside { color: var(--muted); font-style: italic; margin: 0; }
h3 > code { background: none; padding: 0; font-weight: 700; }
[id] { scroll-margin-top: 1rem; }
.status { color: var(--muted); font-weight: 400; }
@media (max-width: 50rem) {
  .layout { grid-template-columns: 1fr; }
  nav.guide { border-right: 0; border-bottom: 1px solid var(--line); }
  main { padding: 1rem; }
}
`;

export interface PageLink {
  slug: string;
  title: string;
}

/** The site path of a page: `''` is the site's front page. */
export const pagePath = (slug: string) => (slug === '' ? SITE_PREFIX : `${SITE_PREFIX}/${slug}`);

/** A whole page: the header (with the API reference), the guide's navigation, and `body` under its title. */
export function layout(pages: readonly PageLink[], current: PageLink, referencePage: string, body: Html): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${current.title} · Shopflow developers</title>
        <link rel="stylesheet" href="${STYLESHEET}" />
      </head>
      <body>
        <header class="top">
          <a class="brand" href="${SITE_PREFIX}">Shopflow developers</a><a href="${referencePage}">API reference</a>
        </header>
        <div class="layout">
          <nav class="guide" aria-label="Guide">
            <ul>
              ${pages.map(
                (page) =>
                  html`<li>
                    <a href="${pagePath(page.slug)}" ${page.slug === current.slug ? html` aria-current="page"` : ''}>${page.title}</a>
                  </li> `,
              )}
            </ul>
          </nav>
          <main>
            <h1>${current.title}</h1>
            ${body}
          </main>
        </div>
      </body>
    </html> `.text;
}
