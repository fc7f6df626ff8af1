/**
 * The failure type of a delivery request whose seal does not verify for its run
 * (activities/sealed-activities.ts): the workflow fails at once and nothing is sent. The delivery workflow restates it
 * (workflow code imports no activity code), typed by this constant so the two cannot drift.
 */
export const UNSEALED_REQUEST = 'UnsealedDeliveryRequest';
