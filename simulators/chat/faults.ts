import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { graphErrors } from './graph-errors.js';

/** Which Graph calls a fault hits: the Send API, comment hide/show, or reads. */
export type FaultKind = 'send' | 'moderate' | 'read';

/**
 * - `unavailable`: HTTP 503, code 2; nothing done.
 * - `throttled`: code 613; nothing done.
 * - `timeout`: no answer for `delayMs`, then the connection closes; nothing done.
 * - `drop-after-accept`: the platform does the work (the message is sent), then the connection
 *   closes without an answer, so the caller cannot tell it was done.
 */
export type FaultEffect = 'unavailable' | 'throttled' | 'timeout' | 'drop-after-accept';

export interface PlannedFault {
  kind: FaultKind;
  effect: FaultEffect;
  /** Calls of the kind it still hits. */
  remaining: number;
  delayMs: number;
}

const DEFAULT_TIMEOUT_DELAY_MS = 30_000;

/** Faults for the next calls of each kind, used in the order they were planned. */
export class FaultPlan {
  private planned: PlannedFault[] = [];

  inject(fault: { kind: FaultKind; effect: FaultEffect; count?: number; delayMs?: number }): PlannedFault {
    const planned = {
      kind: fault.kind,
      effect: fault.effect,
      remaining: fault.count ?? 1,
      delayMs: fault.delayMs ?? DEFAULT_TIMEOUT_DELAY_MS,
    };
    this.planned.push(planned);
    return planned;
  }

  take(kind: FaultKind): PlannedFault | undefined {
    const fault = this.planned.find((planned) => planned.kind === kind);
    if (!fault) return undefined;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.planned = this.planned.filter((planned) => planned !== fault);
    return fault;
  }

  list(): PlannedFault[] {
    return this.planned.map((planned) => ({ ...planned }));
  }

  clear(): void {
    this.planned = [];
  }
}

/**
 * Puts a fault plan in front of routes: `faultGate(kind)` is a route's `preHandler`. A response to
 * drop is marked here and cut in `onSend`, after the handler did its work.
 */
export type FaultGate = ReturnType<typeof faultGates>;

export function faultGates(app: FastifyInstance, plan: FaultPlan) {
  const responsesToDrop = new WeakSet<FastifyRequest>();
  app.addHook('onSend', async (request, _reply, payload) => {
    if (responsesToDrop.has(request)) request.raw.socket.destroy();
    return payload;
  });
  return function faultGate(kind: FaultKind) {
    return async (request: FastifyRequest, reply: FastifyReply) => {
      const fault = plan.take(kind);
      switch (fault?.effect) {
        case undefined:
          return;
        case 'unavailable':
          throw graphErrors.serviceUnavailable();
        case 'throttled':
          throw graphErrors.throttled();
        case 'timeout':
          reply.hijack();
          setTimeout(() => request.raw.socket.destroy(), fault.delayMs).unref();
          return reply;
        case 'drop-after-accept':
          responsesToDrop.add(request);
      }
    };
  };
}
