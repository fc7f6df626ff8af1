/**
 * Misbehaviour queued for the next requests of a kind (create, cancel, …), so a test can make a
 * carrier fail exactly where an adapter must cope:
 * - `unavailable`: 503 in the carrier's shape, nothing done;
 * - `timeout`: no answer at all (nothing done), or with `delayMs` a slow answer: the request is
 *   carried out after the delay and answered then, whether or not the caller still waits;
 * - `drop-after-accept`: the request is carried out, then the connection is destroyed before the
 *   answer, so the caller cannot tell whether the carrier accepted it;
 * - `slow-after-accept`: the request is carried out at once and answered `delayMs` later (a window
 *   in which the caller's process may die knowing nothing of the acceptance).
 */
export type Fault =
  | { type: 'unavailable' }
  | { type: 'timeout'; delayMs?: number }
  | { type: 'drop-after-accept' }
  | { type: 'slow-after-accept'; delayMs: number };

export const faultTypes = ['unavailable', 'timeout', 'drop-after-accept', 'slow-after-accept'] as const;

export class FaultPlan<Kind extends string> {
  private readonly queued = new Map<Kind, Fault[]>();
  private readonly rejections: string[] = [];

  inject(kind: Kind, fault: Fault, count = 1): void {
    const queue = this.queued.get(kind) ?? [];
    for (let i = 0; i < count; i++) queue.push(fault);
    this.queued.set(kind, queue);
  }

  /** The fault the next request of this kind meets, if any (used once). */
  take(kind: Kind): Fault | undefined {
    return this.queued.get(kind)?.shift();
  }

  /** The next `count` orders are refused with this reason, in the carrier's own error shape. */
  rejectNextOrders(reason: string, count = 1): void {
    for (let i = 0; i < count; i++) this.rejections.push(reason);
  }

  takeRejection(): string | undefined {
    return this.rejections.shift();
  }

  clear(): void {
    this.queued.clear();
    this.rejections.length = 0;
  }

  pending(): { faults: Record<string, Fault[]>; orderRejections: string[] } {
    return { faults: Object.fromEntries(this.queued), orderRejections: [...this.rejections] };
  }
}
