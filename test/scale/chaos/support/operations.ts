/**
 * The well-formed operations of a chaos run, as buyers and merchants make them: pays on checkout pages, carts
 * and charges by card (approved or declined), pix and boleto that the buyer then pays at the sandbox (its paid
 * webhook reaches the service), a charge or cart tried by pix and then paid by card, refunds by the merchant,
 * and charges and carts paid by several cards at the same moment.
 */

import type { Database } from '../../../../src/db/database.ts';
import type { GatewayName } from '../../../../src/gateways/port.ts';
import { cardFields, CARDS } from './cards.ts';
import type { Fleet } from './fleet.ts';
import type { ChaosMerchant } from './merchants.ts';
import type { Random } from './random.ts';
import type { Exchange, Traffic } from './traffic.ts';

const API = '/api/v1';
type Method = 'card' | 'declined' | 'pix' | 'boleto';

export type Workload = {
  database: Database;
  traffic: Traffic;
  fleet: Fleet;
  merchants: ChaosMerchant[];
  random: Random;
  /** Card payments answered paid (by gateway id or payment uid): the refund operations pick from them. */
  paidCards: Array<{ merchant: ChaosMerchant; gatewayId?: string; uid?: string }>;
};

const key = (merchant: ChaosMerchant) => ({ authorization: `Bearer ${merchant.apiKey}` });

function planOf(merchant: ChaosMerchant, method: Method, installments = 1): string {
  if (method === 'pix') return `${merchant.pixPlanId}-1`;
  if (method === 'boleto') return `${merchant.boletoPlanId}-1`;
  return `${merchant.cardPlanId}-${installments}`;
}

/** The body fields of one attempt: plan and, for a card, the gateway's card field; undefined when none could be made. */
async function attemptFields(
  work: Workload,
  merchant: ChaosMerchant,
  gateway: GatewayName,
  method: Method,
  contextPath: string,
  op: string,
): Promise<Record<string, unknown> | undefined> {
  const installments = method === 'card' ? work.random.int(1, 3) : 1;
  const base = { payment_plan_id: planOf(merchant, method, installments), meta: { chaos_op: op } };
  if (method === 'pix') return base;
  // A boleto names its payer (name and CPF), whichever entry point pays it.
  if (method === 'boleto') return { ...base, customer_name: 'Cliente Caos', customer_identification: '52998224725' };
  const number = method === 'declined' ? CARDS.declined : CARDS.approved;
  const card = await cardFields(work.traffic, work.fleet.gateways, gateway, contextPath, op, number);
  return card && { ...base, ...card };
}

/** gateway_c less often: each of its card hashes costs the sandbox an RSA key pair. */
function pickGateway(work: Workload): GatewayName {
  return work.random.weighted<GatewayName>([
    ['gateway_a', 3],
    ['gateway_b', 2],
    ['gateway_c', 1],
  ]);
}

function pickMethod(work: Workload): Method {
  return work.random.weighted<Method>([
    ['card', 6],
    ['declined', 1],
    ['pix', 2],
    ['boleto', 1],
  ]);
}

/** The buyer pays a pix or boleto at the sandbox, whose paid webhook then reaches the service. */
async function confirmAtSandbox(work: Workload, op: string, gateway: GatewayName, gatewayId: string): Promise<void> {
  await work.traffic.send('confirm', 'POST', `/sandbox/charges/${encodeURIComponent(gatewayId)}/confirm`, {
    op,
    url: work.fleet.gateways[gateway],
    body: {},
    facts: { gateway, gatewayId },
  });
}

/** The gateway id of the charge the sandbox made for our payment `uid` (a charge's answer names only the uid). */
async function gatewayIdOf(work: Workload, gateway: GatewayName, paymentUid: string): Promise<string | undefined> {
  const response = await fetch(`${work.fleet.gateways[gateway]}/sandbox/charges`);
  const { data } = (await response.json()) as { data: Array<{ id: string; metadata: Record<string, string> }> };
  return data.find((charge) => charge.metadata.payment_uid === paymentUid)?.id;
}

/**
 * After a pix or boleto was issued, the buyer pays it most of the time. Not on gateway_c: its notices reach
 * the service through the topic receiver (SNS), which the sandbox does not play, so nothing would tell it.
 */
async function maybeConfirm(work: Workload, op: string, gateway: GatewayName, answer: Exchange, gatewayId?: string) {
  if (answer.status !== 200 || gateway === 'gateway_c' || !work.random.chance(0.7)) return;
  const id =
    gatewayId ??
    (await gatewayIdOf(
      work,
      gateway,
      String(answer.body?.pix_qr_code_url ?? answer.body?.bank_slip_url ?? '')
        .split('/')
        .pop()!,
    ));
  if (id) await confirmAtSandbox(work, op, gateway, id);
}

export async function pagePay(work: Workload, op: string): Promise<void> {
  const merchant = work.random.pick(work.merchants);
  const gateway = pickGateway(work);
  const method = pickMethod(work);
  const pageId = merchant.pages[gateway];
  const fields = await attemptFields(work, merchant, gateway, method, `${API}/checkout_pages/${pageId}`, op);
  if (!fields) return;
  const answer = await work.traffic.send('page_pay', 'POST', `${API}/payments`, {
    op,
    body: {
      ...fields,
      checkout_page_id: pageId,
      products: [{ id: merchant.productId, quantity: work.random.int(1, 3) }],
      customer_email: `${op}@chaos.example`,
    },
    facts: { method, gateway, merchant: merchant.accountId },
  });
  if (answer.status === 200 && answer.body.order_status === 'paid')
    work.paidCards.push({ merchant, gatewayId: answer.body.payments[0] });
  if (method === 'pix' || method === 'boleto')
    await maybeConfirm(work, op, gateway, answer, answer.body?.payments?.[0]);
}

async function createCart(work: Workload, merchant: ChaosMerchant, gateway: GatewayName, op: string) {
  const created = await work.traffic.send('cart_create', 'POST', `${API}/carts/${merchant.cartPages[gateway]}`, {
    op,
    headers: key(merchant),
    body: {
      payment_method: 'credit_card',
      items: [{ id: merchant.productId, quantity: work.random.int(1, 2) }],
      freight: work.random.pick([0, 9.9, 15]),
      customer: { email: `${op}@chaos.example`, name: 'Cliente Caos' },
    },
  });
  return created.status === 201 ? (created.body.id as string) : undefined;
}

async function payCart(
  work: Workload,
  merchant: ChaosMerchant,
  gateway: GatewayName,
  cartId: string,
  op: string,
  method: Method,
) {
  const path = `${API}/carts/${cartId}`;
  const fields = await attemptFields(work, merchant, gateway, method, path, op);
  if (!fields) return undefined;
  const answer = await work.traffic.send('cart_pay', 'POST', `${path}/pay`, {
    op,
    body: { ...fields, customer_email: `${op}@chaos.example` },
    facts: { method, gateway, cartId, merchant: merchant.accountId },
  });
  if (answer.status === 200 && answer.body.order_status === 'paid')
    work.paidCards.push({ merchant, uid: answer.body.payments[0].id });
  return answer;
}

/** A cart paid once, or first by pix or boleto and then by card (the earlier order's attempt is then voided). */
export async function cartPay(work: Workload, op: string): Promise<void> {
  const merchant = work.random.pick(work.merchants);
  const gateway = pickGateway(work);
  const cartId = await createCart(work, merchant, gateway, op);
  if (!cartId) return;
  const method = pickMethod(work);
  const first = await payCart(work, merchant, gateway, cartId, op, method);
  if (!first || (method !== 'pix' && method !== 'boleto')) return;
  if (work.random.chance(0.3)) await payCart(work, merchant, gateway, cartId, `${op}-again`, 'card');
  await maybeConfirm(work, op, gateway, first, first.body?.payments?.[0]?.gateway_id);
}

async function createCharge(work: Workload, merchant: ChaosMerchant, op: string): Promise<string | undefined> {
  const created = await work.traffic.send('charge_create', 'POST', `${API}/orders`, {
    op,
    headers: key(merchant),
    body: {
      customer: { email: `${op}@chaos.example`, name: 'Cliente Caos' },
      items: [{ product_id: merchant.productId, quantity: work.random.int(1, 2) }],
      meta: { chaos_op: op },
    },
  });
  return created.status === 201 ? (created.body.uid as string) : undefined;
}

async function payCharge(work: Workload, merchant: ChaosMerchant, uid: string, op: string, method: Method) {
  const path = `${API}/charges/${uid}`;
  // A charge is paid through the company's first card gateway: gateway_a for these merchants.
  const fields = await attemptFields(work, merchant, 'gateway_a', method, path, op);
  if (!fields) return undefined;
  return work.traffic.send('charge_pay', 'POST', `${path}/pay`, {
    op,
    body: fields,
    facts: { method, gateway: 'gateway_a', chargeUid: uid, merchant: merchant.accountId },
  });
}

/** A charge paid once, or first by pix or boleto and then by card (the pix is then voided, or refunded if paid too). */
export async function chargePay(work: Workload, op: string): Promise<void> {
  const merchant = work.random.pick(work.merchants);
  const uid = await createCharge(work, merchant, op);
  if (!uid) return;
  const method = pickMethod(work);
  const first = await payCharge(work, merchant, uid, op, method);
  if (!first || (method !== 'pix' && method !== 'boleto')) return;
  if (work.random.chance(0.3)) await payCharge(work, merchant, uid, `${op}-again`, 'card');
  await maybeConfirm(work, op, 'gateway_a', first);
}

/**
 * The merchant refunds a paid card payment: in full, in part, or by two partial refunds at once. The refund
 * path names the payment's integer id, which no answer of the API carries, so it is read from the database.
 */
export async function refund(work: Workload, op: string): Promise<void> {
  if (work.paidCards.length === 0) return;
  const { merchant, gatewayId, uid } = work.random.pick(work.paidCards);
  const payment = await work.database.db
    .selectFrom('payments')
    .select('id')
    .where(gatewayId ? 'gateway_id' : 'uid', '=', (gatewayId ?? uid)!)
    .executeTakeFirst();
  if (!payment) return;
  const amounts = work.random.weighted<Array<number | undefined>>([
    [[undefined], 1],
    [[work.random.int(1, 40)], 2],
    [[work.random.int(1, 30), work.random.int(1, 30)], 1],
  ]);
  await Promise.all(
    amounts.map((amount) =>
      work.traffic.send('refund', 'POST', `${API}/payments/${payment.id}/refund`, {
        op,
        headers: key(merchant),
        body: amount === undefined ? {} : { amount },
        facts: { paymentId: payment.id, amountCents: amount === undefined ? null : amount * 100 },
      }),
    ),
  );
}

/** One charge or one cart, paid by `count` approved cards at the same moment through every API process. */
export async function concurrentPays(work: Workload, op: string, count: number, on: 'charge' | 'cart') {
  const merchant = work.random.pick(work.merchants);
  if (on === 'charge') {
    const uid = await createCharge(work, merchant, op);
    if (!uid) return;
    const bodies = await Promise.all(
      Array.from({ length: count }, (_, index) =>
        attemptFields(work, merchant, 'gateway_a', 'card', `${API}/charges/${uid}`, `${op}-${index}`),
      ),
    );
    await Promise.all(
      bodies.map((body, index) =>
        body
          ? work.traffic.send('charge_pay', 'POST', `${API}/charges/${uid}/pay`, {
              op: `${op}-${index}`,
              body,
              facts: { method: 'card', gateway: 'gateway_a', chargeUid: uid, group: op, merchant: merchant.accountId },
            })
          : undefined,
      ),
    );
    return;
  }
  const gateway = pickGateway(work);
  const cartId = await createCart(work, merchant, gateway, op);
  if (!cartId) return;
  const path = `${API}/carts/${cartId}`;
  const bodies = await Promise.all(
    Array.from({ length: count }, (_, index) => attemptFields(work, merchant, gateway, 'card', path, `${op}-${index}`)),
  );
  await Promise.all(
    bodies.map((body, index) =>
      body
        ? work.traffic.send('cart_pay', 'POST', `${path}/pay`, {
            op: `${op}-${index}`,
            body: { ...body, customer_email: `${op}-${index}@chaos.example` },
            facts: { method: 'card', gateway, cartId, group: op, merchant: merchant.accountId },
          })
        : undefined,
    ),
  );
}
