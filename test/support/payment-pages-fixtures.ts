import type { Insertable } from 'kysely';
import { boletoFreeField, buildBoleto } from '../../src/brazil/boleto.ts';
import { buildPixBrCode, pixTxid } from '../../src/brazil/pix.ts';
import type { Database } from '../../src/db/database.ts';
import type { Payments } from '../../src/db/schema.ts';
import type { Tenant } from './app.ts';
import { insertOrder, insertPayment } from './catalog-fixtures.ts';

let sequence = 0;

/** A dynamic BR Code as a gateway issues it: the amount lives at the location, the code carries `***`. */
export function gatewayPixCode(): string {
  sequence += 1;
  return buildPixBrCode({
    locationUrl: `pix.gateway.example/qr/${pixTxid(`test:${sequence}`)}`,
    merchantName: 'Loja Exemplo',
    merchantCity: 'SAO PAULO',
    txid: '***',
  });
}

/** A Banco do Brasil boleto (carteira 17) for `amountCents` due on `dueDate`. */
export function gatewayBoleto(amountCents: number, dueDate: string) {
  sequence += 1;
  return buildBoleto({
    bankCode: '001',
    dueDate,
    amountCents,
    freeField: boletoFreeField({ agreement: '3000003', ourNumber: String(sequence), carteira: '17' }),
  });
}

type PaymentOptions = { customerId?: number | null; companyId?: number; row?: Partial<Insertable<Payments>> };

async function orderFor(database: Database, tenant: Tenant, options: PaymentOptions) {
  return insertOrder(database, tenant, {
    customer_id: options.customerId ?? null,
    company_id: options.companyId ?? tenant.companyId,
  });
}

export async function insertPixPayment(
  database: Database,
  tenant: Tenant,
  amountCents: number,
  expiresAt: Date,
  options: PaymentOptions = {},
) {
  const order = await orderFor(database, tenant, options);
  return insertPayment(database, tenant, order.id, {
    company_id: options.companyId ?? tenant.companyId,
    gateway: 'gateway_c',
    method: 'pix',
    status: 'waiting_payment',
    amount_cents: amountCents,
    installment_value_cents: amountCents,
    pix_code: gatewayPixCode(),
    pix_expires_at: expiresAt,
    ...options.row,
  });
}

export async function insertBoletoPayment(
  database: Database,
  tenant: Tenant,
  amountCents: number,
  dueDate: string,
  options: PaymentOptions = {},
) {
  const order = await orderFor(database, tenant, options);
  const boleto = gatewayBoleto(amountCents, dueDate);
  const payment = await insertPayment(database, tenant, order.id, {
    company_id: options.companyId ?? tenant.companyId,
    gateway: 'gateway_c',
    method: 'bank_slip',
    status: 'waiting_payment',
    amount_cents: amountCents,
    installment_value_cents: amountCents,
    boleto_barcode: boleto.barcode,
    boleto_digitable_line: boleto.digitableLine,
    boleto_due_date: dueDate,
    ...options.row,
  });
  return { ...payment, ...boleto };
}
