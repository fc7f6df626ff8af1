// Every workflow the worker registers; the worker bundles this file.
export { deliveryWorkflow } from './flows.js';
export { shipmentCancelWorkflow, shipmentPushWorkflow, shipmentTrackingWorkflow } from './shipments.js';
export { housekeepingWorkflow } from './housekeeping.js';
