import type { KeyObject } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import Fastify, { type FastifyServerOptions } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { type Connection } from '@temporalio/client';
import type { Sql } from '../db/client.js';
import type { Retention } from '../config/settings.js';
import { problemsPlugin } from './plugins/problems.js';
import { methodNotAllowedPlugin } from './plugins/method-not-allowed.js';
import { validatorCompiler } from './plugins/validator.js';
import { serializerCompiler } from './plugins/serializer.js';
import { healthRoutes } from './routes/health.js';
import { developerSiteRoutes } from './routes/developers/index.js';
import { adminOpenApiRoutes, documentObjectTransform, documentTransform, REFERENCE_PAGE } from './routes/open-api.js';
import { publicDocument } from './document/public-document.js';
import { shopRoutes } from './routes/access/shop.js';
import { customerRoutes } from './routes/customers/customers.js';
import { geographyRoutes } from './routes/geography/geography.js';
import { productRoutes } from './routes/catalog/products.js';
import { referenceListRoutes } from './routes/reference-lists.js';
import { inventoryRoutes } from './routes/inventory/inventory.js';
import { orderRoutes } from './routes/orders/orders.js';
import { shipmentRoutes } from './routes/shipments/shipments.js';
import { carrierCallbackRoutes } from './routes/shipments/carrier-callbacks.js';
import type { EagerShipments, ShipmentStarter } from '../workflows/shipments/shipment-starter.js';
import { adminSessionPlugin } from './plugins/admin-session.js';
import { adminSessionRoutes } from './routes/access/admin-session.js';
import { loginDevices, SessionMisses } from '../domain/access/index.js';
import { adminFlowRoutes } from './routes/flows/admin-flows.js';
import { flowRecoveryRoutes } from './routes/flows/flow-recovery.js';
import { flowHealthRoutes } from './routes/flows/flow-health.js';
import { adminCarrierConnectionRoutes } from './routes/shipments/admin-carrier-connections.js';
import { adminApplicationRoutes } from './routes/access/admin-applications.js';
import { adminChoicesRoutes } from './routes/access/admin-choices.js';
import { adminSetupRoutes } from './routes/admin-setup.js';
import { adminPageRoutes } from './routes/chat/admin-pages.js';
import { adminCustomerRoutes } from './routes/customers/admin-customers.js';
import { adminProductRoutes } from './routes/catalog/admin-products.js';
import { adminWebAppRoutes } from './routes/admin-web-app.js';
import { temporalCodecRoutes, webUiOrigins } from './routes/operators/temporal-codec.js';
import type { RouteDeps } from './route-deps.js';
import { authenticationPlugin, containsApiKey } from './plugins/authentication.js';
import { shopTransactionPlugin } from './plugins/shop-transaction.js';
import { fullyDecoded, normalisedPath, routableUrl } from './plugins/route-area.js';
import { chatWebhookRoutes, type ChatWebhookOptions } from './routes/chat/chat-webhook.js';
import { createChatPlatformAdapter, REAL_CHAT_PLATFORM_URL } from '../adapters/chat-platform/platform-adapter.js';
import { chatProfileLookup } from '../adapters/chat-platform/profile-lookup.js';
import { ChatPlatformError } from '../adapters/chat-platform/platform-errors.js';
import { observedChatPlatform } from '../telemetry/call-metrics.js';
import { requestMetricsPlugin } from './plugins/request-metrics.js';
import { requestTracingPlugin } from './plugins/request-tracing.js';
import { tracingOn } from '../telemetry/tracing.js';
import { chatChannel } from '../adapters/chat-platform/chat-channel.js';
import { pageTokenOwner } from '../adapters/chat-platform/page-ownership.js';
import { conversationRoutes } from './routes/chat/conversations.js';
import { createOutboundAgent, type OutboundPolicy } from '../adapters/outbound/outbound-http.js';
import type { CarrierEndpoints } from '../domain/shipments/index.js';
import { commentRoutes } from './routes/chat/comments.js';
import { temporalClient } from '../config/temporal-connection.js';
import type { CodecKey } from '../config/payload-codec.js';

export const API_PREFIX = '/api/open/v1';
export const ADMIN_PREFIX = '/api/admin';
export const BODY_LIMIT_BYTES = 1024 * 1024;

export interface AppDeps {
  sql: Sql;
  temporal: Connection;
  publicBaseUrl: string;
  /** The session cookie's `Secure` attribute: everywhere but development and tests. */
  secureCookies: boolean;
  cursorSecret: string;
  secretsKey: KeyObject;
  temporalNamespace: string;
  /** The payload codec's keys (settings `PAYLOAD_CODEC_KEYS`): every workflow the API starts is encrypted. */
  payloadCodecKeys: readonly [CodecKey, ...CodecKey[]];
  /** Settings `CODEC_OPERATOR_TOKEN`: who may decode at the codec endpoint (none: not served). */
  codecOperatorToken?: string;
  temporalTaskQueue: string;
  temporalUiUrl: string;
  /** Seals every workflow input and signal the API starts: test-runs, resends, shipment pushes, cancels and milestones. */
  workflowSealKey: string;
  /** Fastify's `trustProxy` (settings `TRUST_PROXY`): whose X-Forwarded-For names the client. */
  trustProxy?: boolean | number | string[];
  /** The chat platform's inbound webhook (not served without its app secret). */
  chatWebhook?: Pick<ChatWebhookOptions, 'appSecret' | 'verifyToken'>;
  /** The outbound policy of calls to addresses Shopflow did not write (here: the chat platform). */
  outbound: OutboundPolicy;
  /** Where carrier connections may point (settings `CARRIER_A_HOSTS`, `CARRIER_B_HOSTS`, `OUTBOUND_ALLOW_LOOPBACK`). */
  carrierEndpoints: CarrierEndpoints;
  /** The chat platform's Graph API root (settings `CHAT_PLATFORM_URL`): sends, moderation and profile lookups. */
  chatPlatformUrl?: string;
  /** How long shipment pushes and cancels are awaited, and the tracking's poll interval (settings `SHIPMENT_WAIT_MS`, `SHIPMENT_POLL_MS`). */
  shipments?: { waitMs: number; pollEveryMs: number };
  /** The process's worker on the shipments' queue, once it runs (settings `SHIPMENT_WORKER`; docs/behaviour/shipments.md). */
  eagerShipments?: () => EagerShipments | undefined;
  /** The built admin web app, served at `/admin` (default: web/dist). */
  webAppRoot?: string;
  /** How long a client may take to send a whole request (settings `REQUEST_TIMEOUT_MS`). */
  requestTimeoutMs?: number;
  /** Every answer timed and counted for `/metrics` (telemetry/http-metrics.ts); settings `METRICS`. */
  requestMetrics?: boolean;
  /** What housekeeping keeps (settings `DELIVERY_RETENTION_DAYS`, `EVENT_RETENTION_DAYS`): how far back a batch resend may reach. */
  retention?: Retention;
  logger: FastifyServerOptions['logger'];
}

/**
 * Redacts anything shaped like an API key from a logged URL (a key sent in a query string must never
 * reach a log). A URL whose decoded form holds a key is logged decoded, so `svc%5Flive_…` is caught too.
 */
export function redactKeys(text: string): string {
  return containsApiKey(text) ? fullyDecoded(text).replace(/svc_live_[0-9A-Za-z]*/g, 'svc_live_[redacted]') : text;
}

/**
 * A request URL as logged: keys redacted (redactKeys). Under /platform/ callers prove themselves by
 * a secret in the URL (a carrier's callback path, the chat platform's `hub.verify_token`), so there
 * only the path is logged, with the callback secret redacted.
 */
export function loggableUrl(url: string): string {
  const path = normalisedPath(url);
  if (!path.startsWith('/platform/')) return redactKeys(url);
  return redactKeys(path.replace(/^\/platform\/carriers\/callbacks\/[^/]+/, '/platform/carriers/callbacks/[redacted]'));
}

/** Trust the `hops` proxies nearest to the server (the type Fastify declares has no number form). */
function trustHops(hops: number) {
  return (_address: string, hop: number) => hop < hops;
}

export async function buildApp(deps: AppDeps) {
  const requestTimeout = deps.requestTimeoutMs ?? 30_000;
  const app = Fastify({
    bodyLimit: BODY_LIMIT_BYTES,
    // A client that trickles its request in cannot hold a connection (and what it waits on) for ever.
    requestTimeout,
    trustProxy: typeof deps.trustProxy === 'number' ? trustHops(deps.trustProxy) : (deps.trustProxy ?? false),
    logger: deps.logger
      ? {
          ...(typeof deps.logger === 'object' ? deps.logger : {}),
          redact: ['req.headers.authorization', 'req.headers.cookie'],
          serializers: {
            req: (request: { method: string; url: string; ip?: string }) => ({
              method: request.method,
              url: loggableUrl(request.url),
              remoteAddress: request.ip,
            }),
          },
        }
      : false,
    // Request ids come from us, never from a client header.
    genReqId: () => crypto.randomUUID(),
    // Every request reaches the hooks (key, rate counter) and answers as problem+json: no path is
    // refused by the router itself, for an undecodable escape or a segment over its 100-character
    // default (a URL is bounded by Node's 16 KiB header limit anyway).
    rewriteUrl: (request) => routableUrl(request.url ?? '/'),
    routerOptions: { maxParamLength: 16 * 1024 },
    // A `__proto__` key (or `constructor.prototype`) in a body is dropped while parsing, like any key
    // no schema names, instead of refusing well-formed JSON: no object's prototype is ever set from it.
    onProtoPoisoning: 'remove',
    onConstructorPoisoning: 'remove',
  }).withTypeProvider<ZodTypeProvider>();
  // Node checks request time-outs on this interval (30 s by default, which would double a short limit).
  Object.assign(app.server, { connectionsCheckingInterval: Math.min(30_000, Math.ceil(requestTimeout / 2)) });

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // JSON is the only body the API accepts; everything else is 415.
  app.removeContentTypeParser(['text/plain']);

  await app.register(problemsPlugin, { baseUrl: deps.publicBaseUrl });
  if (deps.requestMetrics !== false) await app.register(requestMetricsPlugin, { openApiPrefix: API_PREFIX, adminPrefix: ADMIN_PREFIX });
  if (tracingOn()) await app.register(requestTracingPlugin);
  // The key first, whatever the method: under /api/open/v1 a request without one is 401, never 405.
  await app.register(authenticationPlugin, { sql: deps.sql, prefix: API_PREFIX, sessionPrefix: ADMIN_PREFIX });
  await app.register(methodNotAllowedPlugin);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      // The description is each document's own (api/document/public-document.ts, adminOpenApiRoutes).
      info: { title: 'Shopflow Open API', version: 'v1' },
      servers: [{ url: deps.publicBaseUrl }],
      components: { securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'An API key (svc_live_…)' } } },
      security: [{ apiKey: [] }],
    },
    transform: documentTransform,
    transformObject: documentObjectTransform,
  });
  // The reference page, and the document it links to at `/docs/json`: outside /api/open/v1, served without a key.
  await app.register(swaggerUi, {
    routePrefix: REFERENCE_PAGE,
    // The Open API's own document (api/document/public-document.ts), made once from the whole one.
    transformSpecification: publicDocument(API_PREFIX),
    transformSpecificationClone: false,
  });
  // The developer guide beside it, at /developers: the address of every problem's `type`.
  await app.register(developerSiteRoutes, { publicBaseUrl: deps.publicBaseUrl, apiPrefix: API_PREFIX });
  await app.register(healthRoutes, { sql: deps.sql, temporal: deps.temporal });
  await app.register(shopTransactionPlugin, { sql: deps.sql, adminPrefix: ADMIN_PREFIX });
  await app.register(shopRoutes, { prefix: API_PREFIX });
  const routeDeps: RouteDeps = { sql: deps.sql, cursorSecret: deps.cursorSecret, publicBaseUrl: deps.publicBaseUrl };
  await app.register(customerRoutes, { prefix: API_PREFIX, ...routeDeps });
  await app.register(geographyRoutes, { prefix: API_PREFIX, sql: deps.sql });
  await app.register(productRoutes, { prefix: API_PREFIX, ...routeDeps });
  await app.register(referenceListRoutes, { prefix: API_PREFIX });
  await app.register(inventoryRoutes, { prefix: API_PREFIX, ...routeDeps });
  await app.register(orderRoutes, { prefix: API_PREFIX, ...routeDeps });
  const temporal = temporalClient(deps.temporal, deps.payloadCodecKeys, deps.temporalNamespace);
  const shipments: ShipmentStarter = {
    client: temporal,
    taskQueue: deps.temporalTaskQueue,
    waitMs: deps.shipments?.waitMs ?? 20_000,
    pollEveryMs: deps.shipments?.pollEveryMs ?? 900_000,
    sealKey: deps.workflowSealKey,
    ...(deps.eagerShipments ? { eager: deps.eagerShipments } : {}),
  };
  await app.register(shipmentRoutes, { prefix: API_PREFIX, ...routeDeps, shipments, secretsKey: deps.secretsKey });
  await app.register(carrierCallbackRoutes, { sql: deps.sql, shipments });

  const chatPlatform = observedChatPlatform(
    createChatPlatformAdapter({ baseUrl: deps.chatPlatformUrl ?? REAL_CHAT_PLATFORM_URL, dispatcher: createOutboundAgent(deps.outbound) }),
    (error) => (error instanceof ChatPlatformError ? error.kind : 'error'),
  );
  const chatDeps = { ...routeDeps, channel: chatChannel(deps.sql, chatPlatform), secretsKey: deps.secretsKey };
  await app.register(conversationRoutes, { prefix: API_PREFIX, ...chatDeps });
  await app.register(commentRoutes, { prefix: API_PREFIX, ...chatDeps });
  if (deps.chatWebhook) {
    const profileOf = deps.chatPlatformUrl ? chatProfileLookup(deps.sql, chatPlatform, deps.secretsKey) : undefined;
    await app.register(chatWebhookRoutes, { sql: deps.sql, ...deps.chatWebhook, profileOf });
  }

  const sessionMisses = new SessionMisses();
  await app.register(adminSessionPlugin, { sql: deps.sql, prefix: ADMIN_PREFIX, sessionMisses });
  await app.register(adminSessionRoutes, {
    prefix: ADMIN_PREFIX,
    sql: deps.sql,
    secureCookie: deps.secureCookies,
    devices: loginDevices(deps.secretsKey),
    sessionMisses,
  });
  await app.register(adminFlowRoutes, {
    prefix: ADMIN_PREFIX,
    deliveries: {
      client: temporal,
      taskQueue: deps.temporalTaskQueue,
      sealKey: deps.workflowSealKey,
    },
    namespace: deps.temporalNamespace,
    temporalUiUrl: deps.temporalUiUrl,
    secretsKey: deps.secretsKey,
    cursorSecret: deps.cursorSecret,
    outbound: deps.outbound,
  });
  const recoveryStarter = { client: temporal, taskQueue: deps.temporalTaskQueue, sealKey: deps.workflowSealKey };
  await app.register(flowRecoveryRoutes, {
    prefix: ADMIN_PREFIX,
    deliveries: recoveryStarter,
    namespace: deps.temporalNamespace,
    temporalUiUrl: deps.temporalUiUrl,
    ...(deps.retention ? { retention: deps.retention } : {}),
  });
  await app.register(flowHealthRoutes, { prefix: ADMIN_PREFIX });
  await app.register(adminCarrierConnectionRoutes, {
    prefix: ADMIN_PREFIX,
    secretsKey: deps.secretsKey,
    publicBaseUrl: deps.publicBaseUrl,
    endpoints: deps.carrierEndpoints,
  });
  // The admin web app: its API (document, pickers, connections, set-up) and its built files.
  await app.register(adminOpenApiRoutes, { prefix: ADMIN_PREFIX });
  await app.register(adminChoicesRoutes, { prefix: ADMIN_PREFIX });
  await app.register(adminApplicationRoutes, { prefix: ADMIN_PREFIX });
  await app.register(adminSetupRoutes, { prefix: ADMIN_PREFIX });
  await app.register(adminPageRoutes, { prefix: ADMIN_PREFIX, secretsKey: deps.secretsKey, ownerOf: pageTokenOwner(chatPlatform) });
  // The shop's staff edits no key may make: customers' contacts and deletion, products' images.
  await app.register(adminCustomerRoutes, { prefix: ADMIN_PREFIX });
  await app.register(adminProductRoutes, { prefix: ADMIN_PREFIX });
  await app.register(temporalCodecRoutes, {
    sql: deps.sql,
    codecKeys: deps.payloadCodecKeys,
    operatorToken: deps.codecOperatorToken,
    uiOrigins: webUiOrigins(deps.temporalUiUrl),
  });
  await app.register(adminWebAppRoutes, { root: deps.webAppRoot ?? fileURLToPath(new URL('../web/dist', import.meta.url)) });
  return app;
}

export type App = Awaited<ReturnType<typeof buildApp>>;
