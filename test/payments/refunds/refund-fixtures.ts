/** Fixtures of the refund and upsell tests: paid orders through the real pay flow, gateway reads. */

import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type { Database } from '../../../src/db/database.ts';
import type { GatewayName, RemoteStatus } from '../../../src/gateways/port.ts';
import { createGateway } from '../../../src/gateways/registry.ts';
import { cardFieldsFor, ORIGIN, KEYS, tokenA, type Merchant, type PayApp } from '../../support/pay-fixtures.ts';

export type PaidOrder = { orderUid: string; gatewayIds: string[]; paymentIds: number[]; offer?: string };

/** Pays `pageId` through `POST /payments` (one product of R$ 100,00 by default); returns the payments. */
export async function payOnPage(
  pay: PayApp,
  database: Database,
  merchant: Merchant,
  pageId: string,
  body: Record<string, unknown>,
): Promise<PaidOrder & { status: number; json: Record<string, unknown> }> {
  const res = await pay.app.inject({
    method: 'POST',
    url: '/api/v1/payments',
    headers: ORIGIN,
    payload: {
      checkout_page_id: pageId,
      products: [{ id: merchant.productId, quantity: 1 }],
      customer_email: 'buyer@example.com',
      ...body,
    },
  });
  const json = res.json() as Record<string, unknown>;
  const gatewayIds = (json.payments as string[] | undefined) ?? [];
  const rows = gatewayIds.length
    ? await database.db
        .selectFrom('payments')
        .select(['id', 'order_id'])
        .where('account_id', '=', merchant.accountId)
        .where('gateway_id', 'in', gatewayIds)
        .orderBy('card_index')
        .execute()
    : [];
  const order = rows[0]
    ? await database.db.selectFrom('orders').select('uid').where('id', '=', rows[0].order_id).executeTakeFirstOrThrow()
    : undefined;
  return {
    status: res.statusCode,
    json,
    orderUid: order?.uid ?? '',
    gatewayIds,
    paymentIds: rows.map((row) => row.id),
    ...(typeof json.offer === 'string' ? { offer: json.offer } : {}),
  };
}

/** A paid card order on `pageId`, a page of `gateway`, with the card field that gateway's client side makes. */
export async function paidByCard(
  pay: PayApp,
  database: Database,
  merchant: Merchant,
  pageId: string,
  gateway: GatewayName,
): Promise<{ paymentId: number; gatewayId: string; orderUid: string }> {
  const paid = await payOnPage(pay, database, merchant, pageId, {
    payment_plan_id: `${merchant.cardPlanId}-1`,
    ...(await cardFieldsFor(database, pay.sandboxes, merchant, gateway)),
  });
  assert.equal(paid.json.order_status, 'paid', JSON.stringify(paid.json));
  return { paymentId: paid.paymentIds[0]!, gatewayId: paid.gatewayIds[0]!, orderUid: paid.orderUid };
}

/** A card order paid on gateway_a with the approved card. */
export async function paidCardOrder(
  pay: PayApp,
  database: Database,
  merchant: Merchant,
  pageId: string = merchant.pageId,
): Promise<PaidOrder> {
  const paid = await payOnPage(pay, database, merchant, pageId, {
    payment_plan_id: `${merchant.cardPlanId}-1`,
    credit_card_0_token: await tokenA(pay.sandboxes),
  });
  if (paid.status !== 200 || paid.json.order_status !== 'paid')
    throw new Error(`the card order was not paid: ${JSON.stringify(paid.json)}`);
  return paid;
}

/** The charge's status as the gateway client reads it from the sandbox. */
export function remoteStatus(pay: PayApp, gateway: GatewayName, gatewayId: string): Promise<RemoteStatus> {
  return createGateway(gateway, { timeoutMs: 2000 }).fetchStatus(
    {
      baseUrl: pay.sandboxes.baseUrlFor(gateway),
      publicKey: KEYS[gateway].publicKey,
      secretKey: KEYS[gateway].secretKey,
    },
    gatewayId,
  );
}

/** Lets `refundThatDies` make a refund request die: the function its trigger raises from. Once per database. */
export async function installRefundDeath(database: Database): Promise<void> {
  await sql`CREATE FUNCTION test_injected_failure() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected failure'; END $$`.execute(
    database.db,
  );
}

/**
 * A refund of `amount` reais of `paymentId` whose request dies after its reservation: the database refuses every
 * update of `refunds` (a trigger) while it runs, so the request answers 500 and leaves the refund pending.
 * Returns the pending row.
 */
export async function refundThatDies(
  pay: PayApp,
  database: Database,
  merchant: Merchant,
  paymentId: number,
  amount: number,
) {
  await sql`CREATE TRIGGER test_fail_refund_update BEFORE UPDATE ON refunds FOR EACH ROW EXECUTE FUNCTION test_injected_failure()`.execute(
    database.db,
  );
  try {
    const res = await pay.app.inject({
      method: 'POST',
      url: `/api/v1/payments/${paymentId}/refund`,
      headers: { authorization: `Bearer ${merchant.apiKey}` },
      payload: { amount },
    });
    assert.equal(res.statusCode, 500, res.body);
  } finally {
    await sql`DROP TRIGGER test_fail_refund_update ON refunds`.execute(database.db);
  }
  const row = await database.db
    .selectFrom('refunds')
    .selectAll()
    .where('payment_id', '=', paymentId)
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();
  assert.equal(row.status, 'pending');
  return row;
}
