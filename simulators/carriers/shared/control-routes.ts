import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { CallbackDispatcher } from './callbacks.js';
import { describeIssues, SimulatorError } from './errors.js';
import { faultTypes, type Fault, type FaultPlan } from './faults.js';
import type { RateLimiter } from './rate-limiter.js';

/** Parses a control request's body or query; 400 with the reasons otherwise. */
export function parseControl<Schema extends z.ZodType>(schema: Schema, input: unknown): z.infer<Schema> {
  const parsed = schema.safeParse(input ?? {});
  if (!parsed.success) throw new SimulatorError(400, describeIssues(parsed.error));
  return parsed.data;
}

/** Control answers are plain `{ error }` JSON, unlike the carrier's own API. */
export function controlErrorHandler(error: Error & { statusCode?: number }, _request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const status = error instanceof SimulatorError ? error.status : (error.statusCode ?? 500);
  return reply.code(status).send({ error: error.message });
}

const count = z.number().int().min(1).default(1);

/** What the advance control asks: a target status (none: the usual next step) and the reason to report. */
export interface AdvanceRequest<Status> {
  to?: Status;
  reason?: string;
  reasonCode?: string;
}

/** What the shop and order controls need of a carrier. */
export interface OrderControlled<Status, Order, Shop> {
  registerShop(input: Partial<Shop>): Shop;
  orders(): Order[];
  order(code: string): Order;
  advance(code: string, to?: Status, details?: { reason?: string; reasonCode?: string }): Order;
}

/** Registering shops, listing orders and moving them along, with each carrier's own body shapes. */
export function registerOrderControls<Status, Order, Shop>(
  control: FastifyInstance,
  carrier: OrderControlled<Status, Order, Shop>,
  schemas: { shop: z.ZodType<Partial<Shop>>; advance: z.ZodType<AdvanceRequest<Status>> },
): void {
  const params = z.object({ code: z.string() });
  control.post('/shops', async (request) => carrier.registerShop(parseControl(schemas.shop, request.body)));
  control.get('/orders', async () => ({ orders: carrier.orders() }));
  control.get('/orders/:code', async (request) => carrier.order(parseControl(params, request.params).code));
  control.post('/orders/:code/advance', async (request) => {
    const { code } = parseControl(params, request.params);
    const { to, ...details } = parseControl(schemas.advance, request.body);
    return carrier.advance(code, to, details);
  });
}

/** The controls both carriers share: faults, order rejections, rate limit, callback misbehaviour. */
export function registerSharedControls<Kind extends string>(
  control: FastifyInstance,
  parts: { faults: FaultPlan<Kind>; faultKinds: readonly [Kind, ...Kind[]]; rateLimiter: RateLimiter; callbacks: CallbackDispatcher },
): void {
  const { faults, rateLimiter, callbacks } = parts;
  const faultBody = z.object({
    kind: z.enum(parts.faultKinds),
    type: z.enum(faultTypes),
    count,
    delayMs: z.number().int().min(0).optional(),
  });

  control.post('/faults', async (request) => {
    const { kind, type, count: times, delayMs } = parseControl(faultBody, request.body);
    const fault: Fault =
      type === 'timeout' ? { type, delayMs } : type === 'slow-after-accept' ? { type, delayMs: delayMs ?? 5_000 } : { type };
    faults.inject(kind as Kind, fault, times);
    return faults.pending();
  });
  control.get('/faults', async () => faults.pending());
  control.delete('/faults', async () => {
    faults.clear();
    return faults.pending();
  });
  control.post('/reject-next-order', async (request) => {
    const { reason, count: times } = parseControl(z.object({ reason: z.string().min(1), count }), request.body);
    faults.rejectNextOrders(reason, times);
    return faults.pending();
  });
  control.put('/rate-limit', async (request) => {
    const { perSecond } = parseControl(z.object({ perSecond: z.number().int().min(1).nullable() }), request.body);
    rateLimiter.set(perSecond);
    return { perSecond: rateLimiter.limit };
  });

  control.get('/callbacks', async () => ({ controls: callbacks.controls(), callbacks: callbacks.list() }));
  control.post('/callbacks/duplicate', async (request) => {
    callbacks.duplicateNext(parseControl(z.object({ count }), request.body).count);
    return callbacks.controls();
  });
  control.post('/callbacks/reorder', async (request) => {
    callbacks.reorderNext(parseControl(z.object({ count: z.number().int().min(2).default(2) }), request.body).count);
    return callbacks.controls();
  });
  control.post('/callbacks/release', async () => {
    callbacks.releaseHeld();
    return callbacks.controls();
  });
  control.post('/callbacks/delay', async (request) => {
    const { count: times, delayMs } = parseControl(z.object({ count, delayMs: z.number().int().min(0) }), request.body);
    callbacks.delayNext(times, delayMs);
    return callbacks.controls();
  });
  control.post('/callbacks/lose', async (request) => {
    callbacks.loseNext(parseControl(z.object({ count }), request.body).count);
    return callbacks.controls();
  });
  control.put('/callbacks/retry', async (request) => {
    const retry = z
      .object({ attempts: z.number().int().min(1), baseDelayMs: z.number().int().min(0), timeoutMs: z.number().int().min(1) })
      .partial();
    callbacks.setRetry(parseControl(retry, request.body));
    return callbacks.controls();
  });
}
