import { Counter, Histogram } from 'prom-client';

/** Calls to outside services take from a few milliseconds to their time-out (10–20 s). */
const CALL_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20];

const carrierCalls = new Counter({
  name: 'shopflow_carrier_calls_total',
  help: "Calls to a carrier's API by carrier, operation and outcome (ok, or the kind of the carrier's refusal or failure).",
  labelNames: ['carrier', 'operation', 'outcome'] as const,
});
const carrierSeconds = new Histogram({
  name: 'shopflow_carrier_call_duration_seconds',
  help: "How long a call to a carrier's API took, by carrier and operation.",
  labelNames: ['carrier', 'operation'] as const,
  buckets: CALL_BUCKETS,
});
const chatPlatformCalls = new Counter({
  name: 'shopflow_chat_platform_calls_total',
  help: "Calls to the chat platform's Graph API by operation and outcome (ok, or the kind of the platform's refusal or failure).",
  labelNames: ['operation', 'outcome'] as const,
});
const chatPlatformSeconds = new Histogram({
  name: 'shopflow_chat_platform_call_duration_seconds',
  help: "How long a call to the chat platform's Graph API took, by operation.",
  labelNames: ['operation'] as const,
  buckets: CALL_BUCKETS,
});

/** What an observed call came to: `ok`, or a short name of its failure (an error's `kind`). */
export type OutcomeOf = (error: unknown) => string;

/**
 * The same object, each method of it timed and counted by `observe` with the method's name as the
 * operation, once its promise settles: a carrier adapter or the chat platform adapter, observed
 * without touching their code. A method that returns no promise (a callback's parser) is left as is.
 */
export function observedMethods<T extends object>(
  target: T,
  observe: (operation: string, outcome: string, seconds: number) => void,
  outcomeOf: OutcomeOf,
): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value: unknown = Reflect.get(object, property, receiver);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      return (...args: unknown[]) => {
        const started = performance.now();
        const result: unknown = (value as (...given: unknown[]) => unknown).apply(object, args);
        if (!(result instanceof Promise)) return result;
        const seconds = () => (performance.now() - started) / 1000;
        return result.then(
          (settled: unknown) => {
            observe(property, 'ok', seconds());
            return settled;
          },
          (error: unknown) => {
            observe(property, outcomeOf(error), seconds());
            throw error;
          },
        );
      };
    },
  });
}

/** A carrier adapter whose calls are counted and timed under `carrier` (its code: carrier_a, carrier_b). */
export function observedCarrier<T extends object>(adapter: T, carrier: string, outcomeOf: OutcomeOf): T {
  return observedMethods(
    adapter,
    (operation, outcome, seconds) => {
      carrierCalls.inc({ carrier, operation, outcome });
      carrierSeconds.observe({ carrier, operation }, seconds);
    },
    outcomeOf,
  );
}

/** The chat platform adapter, its calls counted and timed. */
export function observedChatPlatform<T extends object>(adapter: T, outcomeOf: OutcomeOf): T {
  return observedMethods(
    adapter,
    (operation, outcome, seconds) => {
      chatPlatformCalls.inc({ operation, outcome });
      chatPlatformSeconds.observe({ operation }, seconds);
    },
    outcomeOf,
  );
}
