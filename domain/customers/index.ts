/**
 * Customers: customers with their contacts and addresses (customers, customer_contacts,
 * customer_addresses). Other modules import only this file.
 */

export {
  addCustomerAddress,
  createCustomer,
  customerIdByPhone,
  deleteCustomer,
  getCustomer,
  isCustomerBlocked,
  listCustomers,
  liveCustomers,
  markAddressUsed,
  setCustomerContacts,
  updateCustomer,
} from './customers.js';
export { CustomerAddress, CustomerChanges, CustomerContactsInput, CustomerDetail, CustomerRow, NewCustomer } from './customer-shapes.js';
