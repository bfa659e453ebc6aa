import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import { businessRule } from '../../../http/errors.ts';
import { checkedIdentification, type CustomerColumns } from '../../customers/index.ts';
import type { IntentCustomer } from './intent-statement.ts';
import { findCustomerById } from '../payments.repo.ts';

/** Who pays: an existing customer by id, or contact fields upserted by email (the body's, else the cart's). */
export type CustomerInput = {
  customerId?: number;
  email?: string;
  /** The buyer's identity sent with the payment (`customer_name`, `customer_identification`): it updates the customer. */
  name?: string;
  identification?: string;
  phone?: string;
  address?: {
    city?: string;
    neighborhood?: string;
    number?: string;
    state?: string;
    street?: string;
    zipcode?: string;
  };
  /** A cart's prefilled customer (identification, email, phone, name, state, street, zipcode, city). */
  prefill?: Record<string, unknown>;
};

const IDENTIFICATION_FIELD = 'body/customer_identification';

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;

/**
 * The customer of the payment: the row of `customer_id`, or the contact fields the intent upserts by email;
 * 422 when none can be determined or the id is not the company's.
 */
export async function payCustomerSource(
  db: Kysely<DB>,
  scope: { accountId: string; companyId: number },
  input: CustomerInput,
): Promise<IntentCustomer> {
  if (input.customerId !== undefined) {
    const found = await findCustomerById(db, scope.accountId, scope.companyId, input.customerId);
    if (!found)
      throw businessRule('customer_id does not name a customer of this company', [
        { field: 'body/customer_id', message: 'unknown customer' },
      ]);
    if (input.name === undefined && input.identification === undefined) return { row: found };
    // The customer's own email is the upsert key, so the new identity lands on this same customer.
    return {
      upsert: {
        email: found.email,
        name: input.name,
        identification: checkedIdentification(input.identification, found.foreign, IDENTIFICATION_FIELD),
      },
    };
  }
  const prefill = input.prefill ?? {};
  const email = text(input.email) ?? text(prefill.email);
  if (!email)
    throw businessRule('The customer is unknown: send customer_id or customer_email', [
      { field: 'body/customer_email', message: 'is required without customer_id' },
    ]);
  const phone = input.phone ?? text(prefill.phone)?.replace(/\D/g, '').slice(0, 11);
  const prefilled = text(prefill.identification);
  const columns: CustomerColumns = {
    email: email.toLowerCase(),
    name: text(input.name) ?? text(prefill.name),
    phone: phone || undefined,
    identification:
      input.identification !== undefined
        ? checkedIdentification(input.identification, false, IDENTIFICATION_FIELD)
        : prefilled
          ? checkedIdentification(prefilled, false, 'cart/customer/identification')
          : undefined,
    street: input.address?.street ?? text(prefill.street),
    neighborhood: input.address?.neighborhood,
    number: input.address?.number,
    zipcode: input.address?.zipcode ?? text(prefill.zipcode),
    city: input.address?.city ?? text(prefill.city),
    state: (input.address?.state ?? text(prefill.state))?.toUpperCase(),
  };
  return { upsert: columns };
}
