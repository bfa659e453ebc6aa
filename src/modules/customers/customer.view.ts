import type { Static } from 'typebox';
import type { CustomerRow } from './customers.repo.ts';
import type { CustomerResponseSchema } from './customers.schemas.ts';

type AddressField = 'street' | 'neighborhood' | 'number' | 'complement' | 'zipcode' | 'city' | 'state';

/** Every address field, null when unset: a customer's, an order's or a charge's. */
export function addressOf(row: Record<AddressField, string | null>) {
  return {
    street: row.street,
    neighborhood: row.neighborhood,
    number: row.number,
    complement: row.complement,
    zipcode: row.zipcode,
    city: row.city,
    state: row.state,
  };
}

const stringValues = (meta: unknown): Record<string, string> =>
  Object.fromEntries(
    Object.entries(meta && typeof meta === 'object' ? meta : {}).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    ),
  );

export function toCustomerResponse(
  customer: CustomerRow,
  orderId: number | null,
): Static<typeof CustomerResponseSchema> {
  return {
    id: customer.id,
    email: customer.email,
    identification: customer.identification,
    meta: stringValues(customer.meta),
    name: customer.name,
    phone: customer.phone,
    foreign: customer.foreign,
    address: addressOf(customer),
    order_id: orderId,
  };
}

type AddressKey = 'street' | 'neighborhood' | 'number' | 'complement' | 'zipcode' | 'city' | 'state';
type SentFields = { identification?: string; meta?: Record<string, string> } & Partial<Record<AddressKey, string>>;

/**
 * The answer to a caller without the API key (a checkout page's script): the upsert matches an existing
 * customer by email alone, so it tells back only what this request sent, never what the merchant stored
 * before (document, address, other meta keys): those are null in its answer.
 */
export function toPublicCustomerResponse(
  customer: CustomerRow,
  orderId: number | null,
  sent: SentFields,
): Static<typeof CustomerResponseSchema> {
  const full = toCustomerResponse(customer, orderId);
  const address = Object.fromEntries(
    Object.entries(full.address).map(([key, value]) => [key, sent[key as AddressKey] === undefined ? null : value]),
  ) as typeof full.address;
  const meta = Object.fromEntries(Object.entries(full.meta).filter(([key]) => sent.meta?.[key] !== undefined));
  return {
    ...full,
    identification: sent.identification === undefined ? null : full.identification,
    meta,
    address,
  };
}
