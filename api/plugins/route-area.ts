import type { FastifyRequest } from 'fastify';

/**
 * Whether a request belongs under `prefix` (for example `/api/open/v1`). Decided by the route the
 * router matched, never by the raw URL: the router decodes `/%61pi/…` to `/api/…`, the raw URL does
 * not. A request that matched no route (it will answer 404) is judged by its normalised path
 * (decoded, dot segments resolved, repeated slashes collapsed, case ignored), so every spelling of a
 * protected path is checked the same way and an unknown path under the prefix still needs a key.
 */
export function isUnderPrefix(request: FastifyRequest, prefix: string): boolean {
  const matched = request.routeOptions.url;
  if (matched !== undefined) return matched === prefix || matched.startsWith(`${prefix}/`);
  const path = normalisedPath(request.url);
  const wanted = prefix.toLowerCase();
  return path === wanted || path.startsWith(`${wanted}/`);
}

/** The path of a raw request target as a lenient server might read it (see isUnderPrefix). */
export function normalisedPath(rawUrl: string): string {
  const rawPath = rawUrl.split(/[?#]/, 1)[0]!;
  const decoded = fullyDecoded(rawPath)
    .replace(/\\/g, '/')
    .replace(/\/{2,}/g, '/');
  return new URL(decoded.startsWith('/') ? decoded : `/${decoded}`, 'http://host').pathname.toLowerCase();
}

/** Percent-decoding repeated until stable (a few rounds at most); malformed escapes are left as they are. */
export function fullyDecoded(text: string): string {
  let current = text;
  for (let round = 0; round < 3; round += 1) {
    let next: string;
    try {
      next = decodeURIComponent(current);
    } catch {
      next = current.replace(/%[0-9a-fA-F]{2}/g, (escape) => String.fromCharCode(parseInt(escape.slice(1), 16)));
    }
    if (next === current) break;
    current = next;
  }
  return current;
}

/**
 * Fastify's `rewriteUrl`: a path the router cannot percent-decode (`/orders/%E0%A4%A`) would be
 * answered by the router itself, before any hook, as plain JSON with no key checked and no rate
 * headers. Its `%` signs are escaped instead, so the path is routed as the text it literally is
 * (an unknown path, or an id no route accepts) and answered like any other request.
 */
export function routableUrl(rawUrl: string): string {
  const end = rawUrl.search(/[?#]/);
  const path = end === -1 ? rawUrl : rawUrl.slice(0, end);
  try {
    decodeURIComponent(path);
    return rawUrl;
  } catch {
    return `${path.replaceAll('%', '%25')}${end === -1 ? '' : rawUrl.slice(end)}`;
  }
}
