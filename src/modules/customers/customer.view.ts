import type { Static } from 'typebox';
import { addressOf, whenSet } from '../orders/order-data.view.ts';
import type { CustomerRow } from './customers.repo.ts';
import type { CustomerResponseSchema } from './customers.schemas.ts';

const stringValues = (meta: unknown): Record<string, string> =>
  Object.fromEntries(Object.entries(meta && typeof meta === 'object' ? meta : {}).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));

export function toCustomerResponse(customer: CustomerRow, orderId: number | null): Static<typeof CustomerResponseSchema> {
  return {
    id: customer.id,
    email: customer.email,
    ...whenSet('identification', customer.identification),
    meta: stringValues(customer.meta),
    name: customer.name,
    ...whenSet('phone', customer.phone),
    foreign: customer.foreign,
    address: addressOf(customer),
    order_id: orderId,
  };
}
