import { inboundEventFrom as gatewayAEvent } from '../../gateways/gateway-a/index.ts';
import { inboundEventFrom as gatewayBEvent } from '../../gateways/gateway-b/index.ts';
import type { GatewayName, PaymentAction } from '../../gateways/port.ts';
import { bankActions } from './bank-events.ts';
import { applyInvoiceEvent } from './invoicing-events.ts';
import { applyPlatformEvent } from './platform-events.ts';
import { topicActions } from './topic-messages.ts';
import type { ProcessOutcome, WebhookDeps } from './webhook-deps.ts';
import { findPaymentGateway, type Receiver, type StoredEvent } from './webhooks.repo.ts';

export type Processor = (deps: WebhookDeps, event: StoredEvent) => Promise<ProcessOutcome>;

/** Applies each action through `applyPaymentAction`; an event whose actions are all `ignored` is `ignored`. */
async function applyActions(
  deps: WebhookDeps,
  event: StoredEvent,
  actions: PaymentAction[],
  gateway: GatewayName | 'by_payment',
): Promise<ProcessOutcome> {
  const accountId = event.account_id ?? undefined;
  let acted = false;
  for (const action of actions) {
    if (action.kind === 'ignored') continue;
    acted = true;
    const name =
      gateway === 'by_payment' ? await findPaymentGateway(deps.db, accountId ?? '', action.gatewayId) : gateway;
    if (!name) continue;
    // The bank or a topic message reports on a payment another gateway issued: the log names who reported it.
    const source =
      gateway === 'by_payment' ? { source: event.receiver === 'topic' ? 'topic message' : event.receiver } : {};
    await deps.applyAction(deps.db, {
      gateway: name as GatewayName,
      action,
      accountId,
      at: deps.clock(),
      masterKey: deps.masterKey,
      ...source,
    });
  }
  return acted ? 'processed' : 'ignored';
}

const PROCESSORS: Record<Receiver, Processor> = {
  gateway_a: (deps, event) => applyActions(deps, event, gatewayAEvent(event.payload).actions, 'gateway_a'),
  gateway_b: (deps, event) => applyActions(deps, event, gatewayBEvent(event.payload).actions, 'gateway_b'),
  bank: (deps, event) => applyActions(deps, event, bankActions(event.payload), 'by_payment'),
  topic: async (deps, event) => {
    const parsed = topicActions(event.payload);
    return applyActions(deps, event, parsed.actions, parsed.source === 'gateway_c' ? 'gateway_c' : 'by_payment');
  },
  invoicing: (deps, event) => applyInvoiceEvent(deps, event),
  platform: (deps, event) => applyPlatformEvent(deps, event),
};

export function processorFor(receiver: Receiver): Processor {
  return PROCESSORS[receiver];
}
