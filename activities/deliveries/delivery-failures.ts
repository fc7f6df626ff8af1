/**
 * The failure type of a delivery request whose seal does not verify (activities/deliveries/webhook-send.ts,
 * delivery-records.ts): the workflow fails at once and nothing is sent. The delivery workflow restates it
 * (workflow code imports no activity code), typed by this constant so the two cannot drift.
 */
export const UNSEALED_REQUEST = 'UnsealedDeliveryRequest';
