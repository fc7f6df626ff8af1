// Every workflow the worker registers; the worker bundles this file.
export { deliveryWorkflow } from './deliveries/delivery-workflow.js';
export { deliveryRecoveryWorkflow } from './deliveries/recovery-workflow.js';
export { shipmentCancelWorkflow, shipmentTrackingWorkflow } from './shipments/shipment-workflows.js';
export { housekeepingWorkflow } from './housekeeping/housekeeping-workflow.js';
