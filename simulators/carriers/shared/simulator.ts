import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { CallbackDispatcher, type RetryPolicy } from './callbacks.js';
import { controlErrorHandler, registerOrderControls, registerSharedControls, type AdvanceRequest } from './control-routes.js';
import { FaultPlan } from './faults.js';
import { createCarrierServer, faultable, listen, type Answer, type CarrierRouteHandler, type ListenOptions } from './http.js';
import type { OrderBook, StepDetails, TrackedOrder } from './order-book.js';
import { RateLimiter } from './rate-limiter.js';

export interface CarrierStartOptions extends ListenOptions {
  /** Callback retries; tests shorten the back-off. */
  callbackRetry?: Partial<RetryPolicy>;
  /** Requests per second per shop (default 20); null for no cap. */
  rateLimitPerSecond?: number | null;
}

/** The answers whose shape differs per carrier but whose occasion is the same. */
export interface CarrierDialect {
  /** Any request the carrier cannot take: bad JSON, unknown path, wrong media type. */
  error(status: number, message: string): Answer;
  unavailable: Answer;
  tooManyRequests: Answer;
}

/** Who is calling, as the carrier's credentials say, and the key its per-shop rate limit counts. */
export type Identified<Caller> = { caller: Caller; rateKey: string } | { refusal: Answer };

/** Makes an API route handler: a queued fault first, then credentials and rate limit, then the operation. */
export type EndpointFactory<FaultKind extends string> = <Caller>(
  kind: FaultKind,
  identify: (request: FastifyRequest) => Identified<Caller>,
  operation: (caller: Caller, request: FastifyRequest) => Answer | Promise<Answer>,
) => CarrierRouteHandler;

/** A carrier's shops and orders, as the shared controls reach them. */
export interface CarrierStore<Status extends string | number, Order extends TrackedOrder<Status>, Shop> {
  readonly orders: OrderBook<Status, Order>;
  registerShop(input: Partial<Shop>): Shop;
}

/**
 * What both simulated carriers are made of: a Fastify server with the carrier's API and a
 * `/_control` prefix, queued faults, a per-shop rate limit, callback delivery, and the controls
 * over shops and orders. Subclasses add their store, routes and callback shape.
 */
export abstract class CarrierSimulator<FaultKind extends string, Status extends string | number, Order extends TrackedOrder<Status>, Shop> {
  readonly faults = new FaultPlan<FaultKind>();
  readonly rateLimiter: RateLimiter;
  readonly callbacks: CallbackDispatcher;
  abstract readonly store: CarrierStore<Status, Order, Shop>;
  /** Every call of the carrier's API (not the controls), `METHOD /path`: what the carrier was asked, in order. */
  readonly apiCalls: string[] = [];
  protected readonly app: FastifyInstance = createCarrierServer();
  private baseUrl: string | null = null;

  protected readonly dialect: CarrierDialect;

  protected constructor(options: CarrierStartOptions, dialect: CarrierDialect, userAgent: string) {
    this.dialect = dialect;
    this.rateLimiter = new RateLimiter(options.rateLimitPerSecond === undefined ? 20 : options.rateLimitPerSecond);
    this.callbacks = new CallbackDispatcher(userAgent, options.callbackRetry);
  }

  /** The base URL an adapter is configured with, e.g. `http://127.0.0.1:3601`. */
  get url(): string {
    if (this.baseUrl === null) throw new Error('the simulator is not listening');
    return this.baseUrl;
  }

  /** Adds a shop (or updates the one with the same key credential); missing credentials are made up. */
  registerShop(input: Partial<Shop> = {}): Shop {
    return this.store.registerShop(input);
  }

  /** One step along the usual path, or straight to `to` when it lies ahead; sends the callback. */
  advance(code: string, to?: Status, details: StepDetails = {}): Order {
    return this.store.orders.advance(code, to, details);
  }

  orders(): Order[] {
    return this.store.orders.all();
  }

  order(code: string): Order {
    return this.store.orders.require(code);
  }

  async close(): Promise<void> {
    this.callbacks.close();
    await this.app.close();
  }

  protected async listen(options: ListenOptions): Promise<void> {
    this.baseUrl = await listen(this.app, options);
  }

  /** The carrier's API and its controls, each with its own error shape. */
  protected mount(parts: {
    api: (scope: FastifyInstance) => void;
    faultKinds: readonly [FaultKind, ...FaultKind[]];
    controlSchemas: { shop: z.ZodType<Partial<Shop>>; advance: z.ZodType<AdvanceRequest<Status>> };
    moreControls?: (scope: FastifyInstance) => void;
  }): void {
    const { dialect } = this;
    this.app.setNotFoundHandler((request, reply) => {
      const answer = dialect.error(404, `no route ${request.method} ${request.url}`);
      return reply.code(answer.status).send(answer.body);
    });
    void this.app.register(async (scope) => {
      scope.setErrorHandler((error: Error & { statusCode?: number }, _request, reply) => {
        const answer = dialect.error(error.statusCode ?? 500, error.message);
        return reply.code(answer.status).send(answer.body);
      });
      parts.api(scope);
    });
    void this.app.register(
      async (scope) => {
        scope.setErrorHandler(controlErrorHandler);
        registerSharedControls(scope, {
          faults: this.faults,
          faultKinds: parts.faultKinds,
          rateLimiter: this.rateLimiter,
          callbacks: this.callbacks,
        });
        registerOrderControls(scope, this, parts.controlSchemas);
        parts.moreControls?.(scope);
      },
      { prefix: '/_control' },
    );
  }

  /** The handler of every API route (see EndpointFactory). */
  protected readonly endpoint: EndpointFactory<FaultKind> = (kind, identify, operation) =>
    faultable(this.faults, kind, this.dialect.unavailable, (request) => {
      this.apiCalls.push(`${request.method} ${request.url}`);
      const identified = identify(request);
      if ('refusal' in identified) return identified.refusal;
      if (!this.rateLimiter.allow(identified.rateKey)) return this.dialect.tooManyRequests;
      return operation(identified.caller, request);
    });
}
