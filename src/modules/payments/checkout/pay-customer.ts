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
    return { row: found };
  }
  const prefill = input.prefill ?? {};
  const email = text(input.email) ?? text(prefill.email);
  if (!email)
    throw businessRule('The customer is unknown: send customer_id or customer_email', [
      { field: 'body/customer_email', message: 'is required without customer_id' },
    ]);
  const phone = input.phone ?? text(prefill.phone)?.replace(/\D/g, '').slice(0, 11);
  const identification = text(prefill.identification);
  const columns: CustomerColumns = {
    email: email.toLowerCase(),
    name: text(prefill.name),
    phone: phone || undefined,
    identification: identification
      ? checkedIdentification(identification, false, 'cart/customer/identification')
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
