/** Markup already escaped: what `html` returns and interpolates as is. */
export class Html {
  readonly text: string;

  constructor(text: string) {
    this.text = text;
  }
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escape = (text: string) => text.replace(/[&<>"']/g, (character) => ESCAPES[character]!);

function render(value: unknown): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escape(String(value));
}

/** A template whose interpolations are escaped, unless they are Html (or arrays of it): no page can be injected into. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  return new Html(strings.reduce((out, text, index) => out + text + (index < values.length ? render(values[index]) : ''), ''));
}

/** Prose with `inline code`, as the problem guidance and event lists write it. */
export function prose(text: string): Html {
  return new Html(
    text
      .split('`')
      .map((part, index) => (index % 2 === 1 ? `<code>${escape(part)}</code>` : escape(part)))
      .join(''),
  );
}

/** A table's head row, one column header each. */
export function tableHead(...columns: string[]): Html {
  return html`<thead>
    <tr>
      ${columns.map((column) => html`<th scope="col">${column}</th>`)}
    </tr>
  </thead>`;
}

/** A block of code, with the file it comes from (every sample is a file the suite runs); it scrolls sideways, so it takes the focus. */
export function codeBlock(code: string, caption: string, language: string): Html {
  return html`<figure class="code">
    <figcaption>${caption}</figcaption>
    <pre tabindex="0"><code class="language-${language}">${code.trimEnd()}</code></pre>
  </figure>`;
}

/** `90` → `1 min 30 s`, `9000` → `2 h 30 min`: a duration as people read it. */
export function duration(seconds: number): string {
  const units: [number, string][] = [
    [3600, 'h'],
    [60, 'min'],
    [1, 's'],
  ];
  const parts: string[] = [];
  let rest = Math.round(seconds);
  for (const [size, unit] of units) {
    if (rest >= size) parts.push(`${Math.floor(rest / size)} ${unit}`);
    rest %= size;
  }
  return parts.length > 0 ? parts.join(' ') : '0 s';
}
