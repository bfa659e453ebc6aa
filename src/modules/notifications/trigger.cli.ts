import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { NotificationUsageError } from './notifications.cli.ts';
import { callService, ServiceCallError, type ServiceTarget } from './operator-client.ts';

/** What each trigger does after the pix is paid at the sandbox (which alone yields `order.paid`). */
const AFTER_PAID = {
  'order.paid': [],
  'refund.succeeded': ['refund'],
  'order.refunded': ['refund'],
  'order.chargeback': ['dispute'],
} as const;
type TriggerEvent = keyof typeof AFTER_PAID;
/** Names people reach for: the pix paid is `order.paid` for the merchant, a chargeback `order.chargeback`. */
const ALIASES: Record<string, TriggerEvent> = { 'payment.paid': 'order.paid', chargeback: 'order.chargeback' };

export const TRIGGER_EVENTS = [...Object.keys(AFTER_PAID), ...Object.keys(ALIASES)];
export const TRIGGER_USAGE = `usage: checkout trigger EVENT --account SLUG [--service-url URL]
  EVENT: ${TRIGGER_EVENTS.join(', ')}`;

type Kit = {
  api_key: string;
  company_id: number;
  checkout_page_id: string;
  product_id: number;
  pix_payment_plan_id: string;
  gateway: string;
  gateway_url: string;
};
type Triggered = {
  payment_id: number;
  payment_status: string;
  order_id: number;
  order_uid: string;
  order_status: string;
};

/**
 * `checkout trigger EVENT`: makes the running service produce a real event the way a buyer and the gateway
 * would. A pix order is paid through the public API with a short-lived key of the account, the gateway sandbox
 * confirms the pix (its webhook pays the order), then the merchant API refunds it or the sandbox disputes it.
 */
export async function runTrigger(args: string[], target: ServiceTarget): Promise<Record<string, unknown>> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { account: { type: 'string' }, 'service-url': { type: 'string' } },
  });
  const [name, ...extra] = positionals;
  const event =
    name === undefined ? undefined : (ALIASES[name] ?? (name in AFTER_PAID ? (name as TriggerEvent) : undefined));
  if (!event || extra.length > 0 || !values.account)
    throw new NotificationUsageError(`${name && !event ? `unsupported event "${name}"\n` : ''}${TRIGGER_USAGE}`);
  const service = { ...target, serviceUrl: values['service-url'] ?? target.serviceUrl };
  const account = values.account;

  const kit = await callService<Kit>(service, 'POST', '/cli/v1/trigger_kits', { body: { account } });
  const asMerchant = { bearer: kit.api_key };
  const paid = await callService<{ payments: string[] }>(service, 'POST', '/api/v1/payments', {
    ...asMerchant,
    body: {
      checkout_page_id: kit.checkout_page_id,
      products: [{ id: kit.product_id, quantity: 1 }],
      customer_email: `trigger+${randomBytes(4).toString('hex')}@example.com`,
      payment_plan_id: kit.pix_payment_plan_id,
    },
  });
  const gatewayId = paid.payments[0]!;
  const sandboxAction = (action: string) =>
    callService(service, 'POST', `/sandbox/charges/${gatewayId}/${action}`, { base: kit.gateway_url });
  await sandboxAction('confirm');
  const payment = await untilPaymentIs(service, account, gatewayId, 'paid');
  const steps: string[] = [`pix ${gatewayId} paid at the ${kit.gateway} sandbox`];
  for (const step of AFTER_PAID[event]) {
    if (step === 'refund') {
      await callService(service, 'POST', `/api/v1/payments/${payment.payment_id}/refund`, asMerchant);
      steps.push(`payment ${payment.payment_id} refunded through the API`);
    } else {
      await sandboxAction('dispute');
      await untilPaymentIs(service, account, gatewayId, 'charged_back');
      steps.push(`chargeback opened at the ${kit.gateway} sandbox`);
    }
  }
  return {
    event,
    order_id: payment.order_id,
    order_uid: payment.order_uid,
    payment_id: payment.payment_id,
    gateway_id: gatewayId,
    steps,
  };
}

/** The gateway's webhook is applied by the service's worker: wait for it (up to 30 s). */
async function untilPaymentIs(
  service: ServiceTarget,
  account: string,
  gatewayId: string,
  status: string,
): Promise<Triggered> {
  const query = new URLSearchParams({ account, gateway_id: gatewayId });
  for (let waited = 0; ; waited += 250) {
    const found = await callService<Triggered>(service, 'GET', `/cli/v1/trigger_kits/payments?${query}`);
    if (found.payment_status === status) return found;
    if (waited >= 30_000)
      throw new ServiceCallError(
        0,
        `payment ${found.payment_id} is still ${found.payment_status}, not ${status}, after 30 s`,
      );
    await sleep(250);
  }
}
