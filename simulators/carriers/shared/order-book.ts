import { SimulatorError } from './errors.js';
import type { StatusGraph } from './status-graph.js';

export interface StatusStep<Status> {
  status: Status;
  at: Date;
  reason: string | null;
  reasonCode: string | null;
}

/** What every simulated carrier keeps about an order; each carrier adds its own fields. */
export interface TrackedOrder<Status> {
  /** The carrier's tracking code (GHN `order_code`, GHTK `label`). */
  readonly code: string;
  readonly shopKey: string;
  /** The partner's own id for the order (GHN `client_order_code`, GHTK `order.id`), unique per shop. */
  readonly clientRef: string | null;
  status: Status;
  history: StatusStep<Status>[];
  readonly createdAt: Date;
  updatedAt: Date;
}

export interface StepDetails {
  reason?: string | null;
  reasonCode?: string | null;
}

/**
 * The orders of one simulated carrier: looked up by tracking code or by the partner's own id,
 * moved only along the carrier's status graph; every move is reported to `onChange` (which sends
 * the carrier's callback).
 */
export class OrderBook<Status extends string | number, Order extends TrackedOrder<Status>> {
  private readonly byCode = new Map<string, Order>();
  private readonly byClientRef = new Map<string, Order>();

  readonly graph: StatusGraph<Status>;
  private readonly onChange: (order: Order, step: StatusStep<Status>) => void;

  constructor(graph: StatusGraph<Status>, onChange: (order: Order, step: StatusStep<Status>) => void) {
    this.graph = graph;
    this.onChange = onChange;
  }

  add(order: Order): Order {
    this.byCode.set(order.code, order);
    if (order.clientRef !== null) this.byClientRef.set(clientKey(order.shopKey, order.clientRef), order);
    return order;
  }

  get(code: string): Order | undefined {
    return this.byCode.get(code);
  }

  /** The order a tracking code names, or a 404 for the control routes. */
  require(code: string): Order {
    const order = this.byCode.get(code);
    if (!order) throw new SimulatorError(404, `no order ${code}`);
    return order;
  }

  findByClientRef(shopKey: string, clientRef: string): Order | undefined {
    return this.byClientRef.get(clientKey(shopKey, clientRef));
  }

  all(): Order[] {
    return [...this.byCode.values()];
  }

  /** One step along the usual path, or a jump to `to` when it lies ahead; 409 otherwise. */
  advance(code: string, to?: Status, details: StepDetails = {}): Order {
    const order = this.require(code);
    const target = to ?? this.graph.nextStep(order.status);
    if (target === undefined) throw new SimulatorError(409, `order ${code} is ${order.status}, a final status`);
    if (!this.graph.canReach(order.status, target)) {
      throw new SimulatorError(409, `order ${code} cannot go from ${order.status} to ${target}`);
    }
    this.move(order, target, details);
    return order;
  }

  /** Records the move and reports it; callers have checked that the carrier allows it. */
  move(order: Order, to: Status, details: StepDetails = {}): void {
    const step: StatusStep<Status> = { status: to, at: new Date(), reason: details.reason ?? null, reasonCode: details.reasonCode ?? null };
    order.status = to;
    order.history.push(step);
    order.updatedAt = step.at;
    this.onChange(order, step);
  }
}

function clientKey(shopKey: string, clientRef: string): string {
  return `${shopKey}\u0000${clientRef}`;
}

/** The first entry of an order's history. */
export function firstStep<Status>(status: Status, at: Date): StatusStep<Status> {
  return { status, at, reason: null, reasonCode: null };
}
