import { TypedSearchAttributes } from '@temporalio/common';
import type { DeliveryInput } from './delivery-workflow.js';
import { DeliveryStatusKey, EventIdKey, EventTypeKey, FlowIdKey, ShopIdKey, ShopSlugKey, TestRunKey } from '../search-attributes.js';

/**
 * What every run of a delivery carries besides its input, whoever starts it: the starter (relay,
 * admin API, CLI) or a recovery batch starting it as a child. Workflow code, so both can use it.
 */

/** A delivery request before it is sealed: what the relay, the admin API and the CLI build. */
export type UnsealedDeliveryInput = Omit<DeliveryInput, 'seal'>;

/** The one delivery of an event to a flow (DESIGN.md: `delivery:<flowId>:<eventId>`). */
export function deliveryWorkflowId(flowId: string, eventId: string): string {
  return `delivery:${flowId}:${eventId}`;
}

/**
 * What an operator filters deliveries by in the Temporal Web UI; `DeliveryStatus` starts as
 * `delivering`, `TestRun` tells a flow builder's test-runs from deliveries of real events.
 */
export function searchAttributes(
  input: Pick<DeliveryInput, 'shopId' | 'flowId' | 'eventType' | 'eventId' | 'testRun' | 'about'>,
): TypedSearchAttributes {
  return new TypedSearchAttributes([
    { key: ShopIdKey, value: input.shopId },
    ...(input.about ? [{ key: ShopSlugKey, value: input.about.shopSlug }] : []),
    { key: FlowIdKey, value: input.flowId },
    { key: EventTypeKey, value: input.eventType },
    { key: EventIdKey, value: input.eventId },
    { key: DeliveryStatusKey, value: 'delivering' },
    { key: TestRunKey, value: input.testRun === true },
  ]);
}

/**
 * The run's summary and details in the Temporal UI (user metadata, encrypted by the payload codec
 * like any payload): the flow, the event and its record on one line; the shop and the ids below.
 */
export function runMetadata(input: UnsealedDeliveryInput): { staticSummary: string; staticDetails: string } {
  const { about } = input;
  const kind = input.testRun ? 'test-run of ' : '';
  const record = about?.record ? ` ${about.record}` : '';
  return {
    staticSummary: `${kind}${about ? `${about.flowName}: ` : ''}${input.eventType}${record}`,
    staticDetails: [
      about && `**Shop** ${about.shopSlug}`,
      about && `**Flow** ${about.flowName} (${input.flowId})`,
      `**Event** ${input.eventType} ${input.eventId}`,
      `**Delivery** ${input.deliveryId}`,
    ]
      .filter(Boolean)
      .join('\n'),
  };
}
