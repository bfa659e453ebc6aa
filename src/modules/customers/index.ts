// The customers module's public face: other modules and the processes import only what is listed here.
export { checkedIdentification, customerColumns } from './customer-fields.ts';
export { addressOf } from './customer.view.ts';
export { type CustomerColumns, type CustomerRow, upsertCustomer, upsertCustomerQuery } from './customers.repo.ts';
export { registerCustomerRoutes } from './customers.routes.ts';
export { AddressFields, AddressSchema, CustomerField } from './customers.schemas.ts';
export type { DealCreator } from './customers.service.ts';
