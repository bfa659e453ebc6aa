import type { PaymentAction } from '../../gateways/port.ts';
import { invalidPayload, isObject, requireCents, requireDate, requireString } from './payloads.ts';

export type BankEvent = { id: string; type: string; data: Record<string, unknown> };

/** `{ id, type, data: { gateway_id, ... } }`; throws a 422 for any other shape. */
export function parseBankEvent(body: unknown): BankEvent {
  if (!isObject(body) || !isObject(body.data))
    throw invalidPayload('A bank event is { id, type, data: { gateway_id, ... } }');
  return { id: requireString(body.id, 'id'), type: requireString(body.type, 'type', 100), data: body.data };
}

/** Maps a bank event onto the closed set of payment actions, by the gateway id of the payment. */
export function bankActions(body: unknown): PaymentAction[] {
  const event = parseBankEvent(body);
  const { data } = event;
  switch (event.type) {
    case 'pix.received':
    case 'boleto.paid':
      return [
        {
          kind: 'payment_paid',
          gatewayId: requireString(data.gateway_id, 'data.gateway_id'),
          amountCents: requireCents(data.amount, 'data.amount'),
          paidAt: requireDate(data.paid_at, 'data.paid_at'),
        },
      ];
    case 'pix.refunded':
      return [
        {
          kind: 'payment_refunded',
          gatewayId: requireString(data.gateway_id, 'data.gateway_id'),
          amountCents: requireCents(data.amount, 'data.amount'),
          refundId: requireString(data.refund_id, 'data.refund_id'),
        },
      ];
    case 'pix.expired':
    case 'boleto.expired':
    case 'boleto.cancelled':
      return [{ kind: 'payment_expired', gatewayId: requireString(data.gateway_id, 'data.gateway_id') }];
    default:
      return [{ kind: 'ignored', reason: `bank event ${event.type} has no effect` }];
  }
}
