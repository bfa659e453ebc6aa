import { transitionOrder } from '../orders/index.ts';
import { invalidPayload, isObject, requireCents, requireString } from './payloads.ts';
import type { ProcessOutcome, WebhookDeps } from './webhook-deps.ts';
import type { StoredEvent } from './webhooks.repo.ts';

export const INVOICE_EVENT_TYPES = ['invoice.authorized', 'invoice.cancelled'] as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * `{ id, type, data: { order_id: <order uid>, invoice: { id, type, number?, series?, amount, url? } } }`.
 * Other types are stored and ignored; a known type with another shape is a 422.
 */
export type InvoiceEvent = {
  id: string;
  type: string;
  invoice?: {
    orderUid: string;
    externalId: string;
    type: string;
    number: string | null;
    series: string | null;
    valueCents: number;
    url: string | null;
  };
};

export function parseInvoiceEvent(body: unknown): InvoiceEvent {
  if (!isObject(body)) throw invalidPayload('An invoicing event is { id, type, data }');
  const id = requireString(body.id, 'id');
  const type = requireString(body.type, 'type', 100);
  if (!(INVOICE_EVENT_TYPES as readonly string[]).includes(type)) return { id, type };
  const data = isObject(body.data) ? body.data : {};
  const invoice = isObject(data.invoice) ? data.invoice : {};
  const orderUid = requireString(data.order_id, 'data.order_id');
  if (!UUID.test(orderUid)) throw invalidPayload('data.order_id must be an order id (uuid)');
  const optional = (value: unknown, field: string) =>
    value === undefined || value === null ? null : requireString(value, field, 2000);
  return {
    id,
    type,
    invoice: {
      orderUid,
      externalId: requireString(invoice.id, 'data.invoice.id'),
      type: requireString(invoice.type, 'data.invoice.type', 20),
      number: optional(invoice.number, 'data.invoice.number'),
      series: optional(invoice.series, 'data.invoice.series'),
      valueCents: requireCents(invoice.amount, 'data.invoice.amount', { allowZero: true }),
      url: optional(invoice.url, 'data.invoice.url'),
    },
  };
}

/** Upserts the order's invoice and, when authorised, bills the order (in the transaction that marks the event). */
export async function applyInvoiceEvent(deps: WebhookDeps, event: StoredEvent): Promise<ProcessOutcome> {
  const parsed = parseInvoiceEvent(event.payload);
  const accountId = event.account_id;
  if (!parsed.invoice || !accountId || event.company_id === null) return 'ignored';
  const invoice = parsed.invoice;
  const at = deps.clock();
  const trx = deps.db;
  const order = await trx
    .selectFrom('orders')
    .select('id')
    .where('account_id', '=', accountId)
    .where('company_id', '=', event.company_id)
    .where('uid', '=', invoice.orderUid)
    .executeTakeFirst();
  if (!order) return 'ignored';
  const status = parsed.type === 'invoice.authorized' ? 'authorized' : 'cancelled';
  await trx
    .insertInto('invoices')
    .values({
      account_id: accountId,
      order_id: order.id,
      external_id: invoice.externalId,
      type: invoice.type,
      number: invoice.number,
      series: invoice.series,
      status,
      value_cents: invoice.valueCents,
      url: invoice.url,
      created_at: at,
      updated_at: at,
    })
    .onConflict((oc) =>
      oc.columns(['account_id', 'order_id', 'external_id']).doUpdateSet({
        status,
        number: invoice.number,
        series: invoice.series,
        value_cents: invoice.valueCents,
        url: invoice.url,
        updated_at: at,
      }),
    )
    .execute();
  if (status === 'authorized')
    await transitionOrder(trx, {
      accountId,
      orderId: order.id,
      to: 'billed',
      cause: `invoicing: invoice ${invoice.externalId} authorized`,
      at,
    });
  return 'processed';
}
