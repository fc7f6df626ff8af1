import { RATE_LIMITS, type RateCounter } from '../../domain/access/index.js';
import { SYNC_OVERLAP_MINUTES } from '../../domain/kernel/index.js';
import { SAFETY_DELAY } from '../schemas/list-query.js';
import { codeList, isNode, type Node } from './schema-walk.js';

/**
 * What every operation of the Open API takes or answers beyond its route schema, told to the
 * document: the rate-limit headers of every answer, `Retry-After`, `Idempotency-Key` and
 * `Idempotent-Replayed` (api/plugins/authentication.ts, rate-headers.ts, idempotency.ts).
 */
const integer = (minimum: number) => ({ type: 'integer', minimum });

export const RESPONSE_HEADERS = {
  RateLimitLimit: {
    description: 'The ceiling of the rate-limit counter this request counts in, per one-minute window',
    required: true,
    schema: { ...integer(1), examples: [RATE_LIMITS.general] },
  },
  RateLimitRemaining: {
    description: 'Requests left in the current window',
    required: true,
    schema: { ...integer(0), examples: [599] },
  },
  RateLimitReset: {
    description: 'Seconds (not a timestamp) until the window refreshes',
    required: true,
    schema: { ...integer(0), examples: [42] },
  },
  RetryAfter: {
    description: 'Seconds to wait before sending again: on every 429, and on a 409 `idempotency-key-in-progress`',
    schema: { ...integer(0), examples: [42] },
  },
  IdempotentReplayed: {
    description: '`true` when this answer is the stored answer of an earlier request with the same Idempotency-Key',
    schema: { type: 'string', examples: ['true'] },
  },
};

const HEADER_NAMES: Record<keyof typeof RESPONSE_HEADERS, string> = {
  RateLimitLimit: 'X-RateLimit-Limit',
  RateLimitRemaining: 'X-RateLimit-Remaining',
  RateLimitReset: 'X-RateLimit-Reset',
  RetryAfter: 'Retry-After',
  IdempotentReplayed: 'Idempotent-Replayed',
};

/** Header text as `Idempotency-Key` takes it (api/plugins/idempotency.ts): 1 to 255 bytes, one character each; HTTP drops the spaces around it. */
const KEY_TEXT = '^[\\t ]*[!-~\\u0080-\\u00ff]([\\t -~\\u0080-\\u00ff]{0,253}[!-~\\u0080-\\u00ff])?[\\t ]*$';

export const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry of this creation safe (a UUID is recommended; any header text of 1 to 255 bytes is taken, compared byte for byte). The same key with the same body within 24 hours replays the first answer, with `Idempotent-Replayed: true`; the key with another body is 422 `idempotency-key-reused`; while the first request still runs, 409 `idempotency-key-in-progress` with `Retry-After`.',
  schema: { type: 'string', pattern: KEY_TEXT, examples: ['5f0c8a9e-3b1d-4c2a-9e7f-1a2b3c4d5e6f'] },
};

/** Each counter's ceiling and scope (spec, Limits). */
const COUNTERS: Record<RateCounter, string> = {
  general: `the \`general\` rate-limit counter (${RATE_LIMITS.general} requests a minute per key)`,
  messages: `the \`messages\` rate-limit counter (${RATE_LIMITS.messages} requests a minute per key)`,
  shipments: `the \`shipments\` rate-limit counter (${RATE_LIMITS.shipments} requests a minute per shop, shared by all its keys)`,
};

interface Operation extends Node {
  description?: string;
  parameters?: Node[];
  responses: Record<string, Node>;
  'x-permissions'?: string[];
  'x-rate-limit-counter'?: RateCounter;
}

const SUCCESS_DESCRIPTIONS: Record<string, string> = { '200': 'OK', '201': 'Created', '204': 'No content' };

const carries = (response: Node | undefined, code: string) =>
  String(response?.description ?? '')
    .split(', ')
    .includes(code);

/** Whether the operation honours `Idempotency-Key`: it answers the key's own refusals. */
function isIdempotent(operation: Operation): boolean {
  return Object.values(operation.responses).some((response) => carries(response, 'idempotency-key-reused'));
}

/** The operation's description: its route's own words, then what it needs, what it counts in, how to retry and how to page. */
function description(operation: Operation, idempotent: boolean): string {
  const permissions = operation['x-permissions'] ?? [];
  const parameter = (name: string) => operation.parameters?.some((candidate) => candidate.name === name);
  return [
    operation.description,
    permissions.length > 0 ? `Needs the permission${permissions.length > 1 ? 's' : ''} ${codeList(permissions)}.` : 'Needs any valid key.',
    `Counts in ${COUNTERS[operation['x-rate-limit-counter'] ?? 'general']}.`,
    idempotent ? 'Send an `Idempotency-Key` to make a retry safe.' : undefined,
    parameter('cursor')
      ? 'Paged: ask for the next page with `cursor` = `nextCursor` (null on the last page) and every other parameter unchanged.'
      : undefined,
    parameter('updatedSince')
      ? `With \`updatedSince\`, only records changed at or after it and older than the safety delay (${SAFETY_DELAY}) are listed; start each pass ${SYNC_OVERLAP_MINUTES} minutes before the stored mark and de-duplicate by \`id\`.`
      : undefined,
  ]
    .filter(Boolean)
    .join('\n\n');
}

const ref = (name: keyof typeof RESPONSE_HEADERS) => ({ $ref: `#/components/headers/${name}` });

/** Adds to one Open API operation its description, its headers and its counter, in place. */
export function completeOperation(operation: Operation): void {
  const idempotent = isIdempotent(operation);
  operation.description = description(operation, idempotent);
  operation['x-rate-limit-counter'] ??= 'general';
  if (idempotent) operation.parameters = [...(operation.parameters ?? []), { $ref: '#/components/parameters/IdempotencyKey' }];
  for (const [status, response] of Object.entries(operation.responses)) {
    if (response.description === 'Default Response') response.description = SUCCESS_DESCRIPTIONS[status] ?? 'Success';
    const names: (keyof typeof RESPONSE_HEADERS)[] = ['RateLimitLimit', 'RateLimitRemaining', 'RateLimitReset'];
    if (status === '429' || (idempotent && carries(response, 'idempotency-key-in-progress'))) names.push('RetryAfter');
    if (idempotent && status.startsWith('2')) names.push('IdempotentReplayed');
    const headers = isNode(response.headers) ? response.headers : {};
    response.headers = { ...headers, ...Object.fromEntries(names.map((name) => [HEADER_NAMES[name], ref(name)])) };
  }
}
