/**
 * The failure type of a delivery request whose seal does not verify (activities/flows/webhook-send.ts):
 * the workflow fails at once and nothing is sent. A plain module, so workflow code may import it.
 */
export const UNSEALED_REQUEST = 'UnsealedDeliveryRequest';
