/**
 * Inventory: warehouses, stock per variant and warehouse, and stock documents (warehouses, stock,
 * inventory_documents, inventory_document_lines); `adjustStock` is the one way stock moves. Other
 * modules import only this file.
 */

export { adjustStock, checkStockMoves, latestStockRowOf, listStock, type StockMove } from './inventory.js';
export {
  createInventoryDocument,
  getInventoryDocument,
  MAX_DOCUMENT_LINES,
  postInventoryDocument,
  receiveInventoryDocument,
} from './inventory-documents.js';
export { createWarehouse, deleteWarehouse, listWarehouses, liveWarehouses, updateWarehouse, warehouseNameOf } from './warehouses.js';
