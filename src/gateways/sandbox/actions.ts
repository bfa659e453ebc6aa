import type { GatewaySandbox } from './context.ts';
import { confirmPayment, disputePayment, expirePayment, type ChargeEvent } from './lifecycle.ts';
import { SandboxError } from './router.ts';
import { REFUND_BEHAVIOURS, refundedCents, type RefundBehaviour, type SandboxCharge } from './store.ts';
import { stringAt } from '../wire.ts';

type Action = (charge: SandboxCharge, now: Date) => ChargeEvent;

const ACTIONS: Record<string, Action> = { confirm: confirmPayment, expire: expirePayment, dispute: disputePayment };

/**
 * The sandbox-only actions, without authentication (nothing real is behind them):
 * `POST /<gateway>/sandbox/charges/{id}/confirm | expire | dispute` plays the buyer paying, a pix or
 * boleto lapsing, or a chargeback, and delivers the gateway's webhook;
 * `POST /<gateway>/sandbox/charges/{id}/next_refund` `{ behaviour }` makes the charge's next refund call
 * refuse, fail, time out or wait for its webhook (`refund-behaviours.ts`); `GET /<gateway>/sandbox/webhooks`
 * lists recent deliveries.
 */
export function addSandboxActions(sandbox: GatewaySandbox): void {
  const { context, router } = sandbox;
  for (const [name, action] of Object.entries(ACTIONS)) {
    router.add('POST', `/sandbox/charges/:id/${name}`, ({ params }) => {
      const charge = context.store.charges.get(params.id!);
      if (!charge) throw new SandboxError(404, 'not_found', 'No charge has this id');
      const event = action(charge, context.now());
      const delivery = sandbox.notify(charge, event);
      return {
        status: 200,
        body: {
          charge: sandbox.view(charge),
          webhook: { event_id: delivery.eventId, type: delivery.eventType, delivery: delivery.status },
        },
      };
    });
  }
  router.add('POST', '/sandbox/charges/:id/next_refund', ({ params, body }) => {
    const charge = context.store.charges.get(params.id!);
    if (!charge) throw new SandboxError(404, 'not_found', 'No charge has this id');
    const behaviour = stringAt(body, 'behaviour');
    if (!REFUND_BEHAVIOURS.includes(behaviour as RefundBehaviour))
      throw new SandboxError(
        422,
        'invalid_field',
        `behaviour must be one of ${REFUND_BEHAVIOURS.join(', ')}`,
        'behaviour',
      );
    charge.nextRefund = behaviour as RefundBehaviour;
    return { status: 200, body: { charge: sandbox.view(charge), next_refund: charge.nextRefund } };
  });
  router.add('GET', '/sandbox/webhooks', () => ({
    status: 200,
    body: { data: context.webhooks.deliveries().filter((delivery) => delivery.gateway === context.gateway) },
  }));
  router.add('GET', '/sandbox/charges', () => ({
    status: 200,
    body: { data: [...context.store.charges.values()].map(ledgerEntry) },
  }));
}

/** A charge as the sandbox's ledger lists it; the owner (a secret key) is left out. */
function ledgerEntry(charge: SandboxCharge) {
  return {
    id: charge.id,
    method: charge.method,
    state: charge.state,
    amount_cents: charge.amountCents,
    installments: charge.installments,
    refunded_cents: refundedCents(charge),
    ...(charge.boleto ? { payer: charge.boleto.payer } : {}),
    refunds: charge.refunds.map((refund) => ({
      id: refund.id,
      amount_cents: refund.amountCents,
      reference: refund.reference,
    })),
    metadata: charge.metadata,
  };
}
