import { completeOperation, IDEMPOTENCY_KEY, RESPONSE_HEADERS } from './operation-extras.js';
import { isNode, openAnswered, reachedSchemas, SCHEMA_REF, type Document, type Node } from './schema-walk.js';
import { EVENT_SCHEMAS, webhooks } from './webhooks.js';
import { withExamples } from './examples.js';

const DESCRIPTION = `One shop's commerce data (orders, products, inventory, customers, shipments, chat) over HTTPS, and its events delivered to your address, signed (see the webhooks).

**Authentication.** \`Authorization: Bearer svc_live_…\`, an API key made in the automation application (API connections) with the permissions each operation names. A key never goes in a URL, and calls come from a server: there is no CORS.

**Versioning.** Every path is under \`/api/open/v1\`. Within v1, answers and event \`data\` may gain fields and enums may gain values (listed as \`x-extensible-enum\`): ignore unknown fields and accept unknown values. Breaking changes come only with \`/v2\`.

**Limits.** Every answer carries \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\` (seconds); over the limit the answer is 429 \`rate-limited\` with \`Retry-After\`.

**Errors.** \`application/problem+json\` with a stable \`code\`; each error response of an operation lists the codes it carries, and the problem's \`type\` links to the code's explanation.

**Values.** Money and quantities are decimal strings (keep them as strings or exact decimals, never binary floating point); times are ISO 8601 in UTC; phone numbers are answered as \`+84…\`.`;

/** The operations' tags, in the reference's order. */
const TAGS: { name: string; description: string }[] = [
  { name: 'Shop', description: 'The shop and application of the key: the smoke test of a key.' },
  { name: 'Orders', description: 'Orders, their status transitions and notes.' },
  { name: 'Products', description: 'Products with their variants and images.' },
  { name: 'Inventory', description: 'Stock per variant and warehouse, and the documents that move it.' },
  { name: 'Customers', description: 'Customers with their contacts and delivery addresses.' },
  { name: 'Shipments', description: 'Orders pushed to a carrier, and their itinerary.' },
  { name: 'Chat', description: "Conversations and comments on the key's chat pages." },
  { name: 'Staff and roles', description: 'Who may handle an order.' },
  {
    name: 'Reference lists',
    description: 'Small lists returned whole: categories, warehouses, tags, payment methods, sales channels, carriers, pages.',
  },
  { name: 'Geography', description: 'Administrative units of Vietnam, for addresses.' },
  { name: 'Webhooks', description: 'Events delivered by automation flows, signed following Standard Webhooks.' },
];

type Operations = Record<string, Node & { responses: Record<string, Node> }>;

/** What the operations take (request bodies and parameters: `sent`) or answer (responses: `answered`). */
function schemasOf(items: Operations[], side: 'sent' | 'answered'): unknown[] {
  return items.flatMap((operations) =>
    Object.values(operations).flatMap((operation) =>
      side === 'sent' ? [operation.requestBody, operation.parameters] : Object.values(operation.responses),
    ),
  );
}

/**
 * The public document, served at `/docs/json` (and `/docs/yaml`) and read by the reference page:
 * the Open API's paths only (the admin API has its own document), each operation completed
 * (operation-extras.ts), the webhooks of the event catalogue, answers open to additions within v1,
 * realistic examples, and only the component schemas it uses.
 */
export function publicDocument(prefix: string): (whole: object) => Document {
  // The swagger document is made once; so is its public form.
  const made = new WeakMap<object, Document>();
  return (whole) => {
    const known = made.get(whole);
    if (known) return known;
    // Plain JSON in and out: `build` edits its copy, and the answer shares no object (`/docs/yaml` then has no aliases).
    const document = JSON.parse(JSON.stringify(build(JSON.parse(JSON.stringify(whole)) as Document, prefix))) as Document;
    made.set(whole, document);
    return document;
  };
}

function build(whole: Document, prefix: string): Document {
  const paths = Object.fromEntries(Object.entries(whole.paths ?? {}).filter(([path]) => path.startsWith(`${prefix}/`))) as Record<
    string,
    Operations
  >;
  for (const operations of Object.values(paths)) for (const operation of Object.values(operations)) completeOperation(operation);
  const hooks = webhooks() as Record<string, Operations>;
  const schemas: Record<string, Node> = { ...whole.components?.schemas, ...EVENT_SCHEMAS };

  const operations = [...Object.values(paths), ...Object.values(hooks)];
  const sent = reachedSchemas(schemasOf(Object.values(paths), 'sent'), schemas);
  // A webhook's body is Shopflow's to send: to its receiver, it is an answer that may grow like any other.
  const answered = reachedSchemas([...schemasOf(Object.values(paths), 'answered'), schemasOf(Object.values(hooks), 'sent')], schemas);
  const both = [...sent].filter((name) => answered.has(name));
  // An answered schema is opened to additions; a sent one stays closed: one component cannot be both.
  if (both.length > 0) throw new Error(`components both sent and answered: ${both.join(', ')}`);
  for (const name of answered) openAnswered(schemas[name]);
  for (const response of schemasOf(Object.values(paths), 'answered')) {
    const content = isNode(response) && isNode(response.content) ? Object.values(response.content) : [];
    for (const media of content) if (isNode(media)) openAnswered(media.schema);
  }
  const used = Object.fromEntries(Object.entries(schemas).filter(([name]) => sent.has(name) || answered.has(name)));

  const { securitySchemes } = whole.components ?? {};
  const tagged = new Set(operations.flatMap((item) => Object.values(item).flatMap((operation) => (operation.tags ?? []) as string[])));
  return webhookOnlyInlined(
    withExamples({
      openapi: whole.openapi,
      info: { ...whole.info, description: DESCRIPTION },
      // The reference page links to the guide (api/routes/developers/): getting started, webhooks, every error.
      externalDocs: { description: 'Developer guide', url: `${whole.servers?.[0]?.url ?? ''}/developers` },
      servers: whole.servers,
      security: whole.security,
      tags: TAGS.filter(({ name }) => tagged.has(name)),
      paths,
      webhooks: hooks,
      components: {
        securitySchemes,
        schemas: used,
        headers: RESPONSE_HEADERS,
        parameters: { IdempotencyKey: IDEMPOTENCY_KEY },
      },
    }),
  );
}

/**
 * The schemas only the webhooks reach (the envelopes, what changed) written where they are used, not
 * as components: a generator that keeps only the components `paths` reach (oapi-codegen's default
 * pruning) then still has every type its webhook code names. What `paths` use stays shared.
 */
function webhookOnlyInlined(document: Document): Document {
  const components = document.components ?? {};
  const schemas = components.schemas ?? {};
  const shared = reachedSchemas([document.paths, components.parameters, components.headers], schemas);
  const inlined = new Set([...reachedSchemas(document.webhooks, schemas)].filter((name) => !shared.has(name)));
  const inline = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(inline);
    if (!isNode(value)) return value;
    const name = typeof value.$ref === 'string' && value.$ref.startsWith(SCHEMA_REF) ? value.$ref.slice(SCHEMA_REF.length) : undefined;
    if (name !== undefined && inlined.has(name)) return inline(schemas[name]);
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, inline(inner)]));
  };
  const kept = Object.fromEntries(Object.entries(schemas).filter(([name]) => !inlined.has(name)));
  return { ...document, webhooks: inline(document.webhooks), components: { ...components, schemas: kept } };
}
