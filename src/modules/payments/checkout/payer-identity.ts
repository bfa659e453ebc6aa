import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import { businessRule, type FieldError } from '../../../http/errors.ts';
import type { PayMethod, PaymentGateway } from '../../../gateways/port.ts';
import type { IntentCustomer } from './intent-statement.ts';
import { findCustomerIdentityByEmail } from '../payments.repo.ts';

const present = (value: string | null | undefined): value is string => typeof value === 'string' && value.trim() !== '';

const EVERY_METHOD: readonly PayMethod[] = ['credit_card', 'pix', 'bank_slip'];

/**
 * The methods whose payer must be named (name and CPF/CNPJ): a boleto always (the bank registers its payer),
 * every method on a page that asks for it (`asks_payer_identity`), and whatever the gateway refuses without it
 * (its `payerIdentityRequired`). The hosted pages ask the buyer by the same list.
 */
export function payerIdentityMethods(
  gateway: Pick<PaymentGateway, 'payerIdentityRequired'> | undefined,
  pageAsks: boolean,
): PayMethod[] {
  const byGateway = gateway?.payerIdentityRequired ?? [];
  return EVERY_METHOD.filter((method) => method === 'bank_slip' || pageAsks || byGateway.includes(method));
}

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

const WHY: Record<PayMethod, string> = {
  bank_slip: 'A boleto needs',
  pix: 'This Pix payment needs',
  credit_card: 'This card payment needs',
};

/**
 * A payment whose method needs its payer named (a boleto always: the ficha de compensação and the bank's
 * registration require the payer's name and CPF/CNPJ; Pix and card when the page or the gateway asks) is refused
 * (422) without them, before anything is written or sent to the gateway.
 */
export async function assertPayerIdentity(
  db: Kysely<DB>,
  context: { accountId: string; companyId: number; asksPayerIdentity?: boolean },
  payment: { method: PayMethod; gateway: Pick<PaymentGateway, 'payerIdentityRequired'> },
  customer: IntentCustomer,
): Promise<void> {
  if (!payerIdentityMethods(payment.gateway, context.asksPayerIdentity ?? false).includes(payment.method)) return;
  const identity = await payerIdentity(db, context, customer);
  const needed = payment.method === 'bank_slip' ? 'is required for a boleto' : 'is required for this payment';
  const missing: FieldError[] = [];
  if (!identity.name) missing.push({ field: 'body/customer_name', message: needed });
  if (!identity.identification) missing.push({ field: 'body/customer_identification', message: needed });
  if (missing.length)
    throw businessRule(
      `${WHY[payment.method]} the payer's name and CPF/CNPJ: send customer_name and customer_identification`,
      missing,
    );
}
