import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import { businessRule, type FieldError } from '../../../http/errors.ts';
import type { IntentCustomer } from './intent-statement.ts';
import { findCustomerIdentityByEmail } from '../payments.repo.ts';

const present = (value: string | null | undefined): value is string => typeof value === 'string' && value.trim() !== '';

/**
 * The payer's name and CPF/CNPJ once the intent is written: an upsert keeps what the customer already has for
 * the fields it does not send. A customer created without a name carries its email as the name: not a name.
 */
async function payerIdentity(
  db: Kysely<DB>,
  scope: { accountId: string; companyId: number },
  customer: IntentCustomer,
): Promise<{ name?: string; identification?: string }> {
  const known =
    'row' in customer
      ? customer.row
      : await findCustomerIdentityByEmail(db, scope, customer.upsert.email).then((row) => ({
          email: customer.upsert.email,
          name: customer.upsert.name ?? row?.name,
          identification: customer.upsert.identification ?? row?.identification,
        }));
  return {
    ...(present(known.name) && known.name !== known.email ? { name: known.name } : {}),
    ...(present(known.identification) ? { identification: known.identification } : {}),
  };
}

/**
 * A boleto names its payer: the ficha de compensação and the bank's registration require the payer's name and
 * CPF/CNPJ. Refused (422) before anything is written or sent to the gateway.
 */
export async function assertBoletoPayer(
  db: Kysely<DB>,
  scope: { accountId: string; companyId: number },
  customer: IntentCustomer,
): Promise<void> {
  const identity = await payerIdentity(db, scope, customer);
  const missing: FieldError[] = [];
  if (!identity.name) missing.push({ field: 'body/customer_name', message: 'is required for a boleto' });
  if (!identity.identification)
    missing.push({ field: 'body/customer_identification', message: 'is required for a boleto' });
  if (missing.length)
    throw businessRule(
      "A boleto needs the payer's name and CPF/CNPJ: send customer_name and customer_identification",
      missing,
    );
}
