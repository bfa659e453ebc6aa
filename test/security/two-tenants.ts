/** Two fully stocked merchants for the security suite: every kind of record exists in both accounts. */

import { randomUUID } from 'node:crypto';
import type { Config } from '../../src/config.ts';
import type { Database } from '../../src/db/database.ts';
import { signOfferToken } from '../../src/modules/payments/settlement/upsell-offer-token.ts';
import { insertPayment, insertSchedule } from '../support/catalog-fixtures.ts';
import { createMerchant, insertCart, insertCharge, type Merchant } from '../support/pay-fixtures.ts';
import { insertCoupon } from '../support/records-fixtures.ts';
import { storeCredentials, type WebhookCredentials } from '../support/webhooks-fixtures.ts';

export type StockedTenant = Merchant & {
  origin: { origin: string };
  credentials: WebhookCredentials;
  couponCode: string;
  cartPageId: string;
  cartId: string;
  charge: { id: number; uid: string };
  customerId: number;
  customerEmail: string;
  paymentId: number;
  paymentUid: string;
  offerToken: string;
};

async function stock(database: Database, config: Config, host: string): Promise<StockedTenant> {
  const merchant = await createMerchant(database, config, [host]);
  const credentials = await storeCredentials(database, config, merchant);
  const couponCode = `SAVE-${merchant.slug}`.toUpperCase();
  await insertCoupon(database, merchant, { code: couponCode, percentage: 10 });
  const cartId = await insertCart(database, merchant);
  const cart = await database.db
    .selectFrom('carts')
    .select('cart_page_id')
    .where('id', '=', cartId)
    .executeTakeFirstOrThrow();
  const charge = await insertCharge(database, merchant);
  const order = await database.db
    .selectFrom('orders')
    .select(['customer_id'])
    .where('id', '=', charge.id)
    .executeTakeFirstOrThrow();
  const customer = await database.db
    .selectFrom('customers')
    .select(['id', 'email'])
    .where('id', '=', order.customer_id!)
    .executeTakeFirstOrThrow();
  const payment = await insertPayment(database, merchant, charge.id, {
    status: 'paid',
    method: 'credit_card',
    gateway_id: `ch_${merchant.slug}`,
  });
  const offerId = randomUUID();
  const expiresAt = new Date(Date.now() + 30 * 60_000);
  await database.db
    .insertInto('upsell_offers')
    .values({
      id: offerId,
      account_id: merchant.accountId,
      order_id: charge.id,
      product_id: merchant.upsellProductId,
      expires_at: expiresAt,
    })
    .execute();
  for (const weekday of [0, 1, 2, 3, 4, 5, 6])
    await insertSchedule(database, merchant, merchant.companyId, weekday, '09:00', '12:00');
  return {
    ...merchant,
    origin: { origin: `https://${host}` },
    credentials,
    couponCode,
    cartPageId: cart.cart_page_id,
    cartId,
    charge,
    customerId: customer.id,
    customerEmail: customer.email,
    paymentId: payment.id,
    paymentUid: payment.uid,
    offerToken: signOfferToken(config.masterKey, offerId, expiresAt),
  };
}

export async function stockTwoTenants(
  database: Database,
  config: Config,
): Promise<{ alpha: StockedTenant; beta: StockedTenant }> {
  return { alpha: await stock(database, config, 'alpha.example'), beta: await stock(database, config, 'beta.example') };
}
