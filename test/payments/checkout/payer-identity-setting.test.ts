import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Database } from '../../../src/db/database.ts';
import type { GatewayName, PaymentGateway } from '../../../src/gateways/port.ts';
import { createGateway } from '../../../src/gateways/registry.ts';
import { usePayGatewayClients } from '../../../src/modules/payments/attempts/pay-gateways.ts';
import { payerIdentityMethods } from '../../../src/modules/payments/index.ts';
import { engines } from '../../support/engines.ts';
import {
  BOLETO_PAYER,
  insertCart,
  insertPage,
  ORIGIN,
  tokenA,
  type Merchant,
  type PayApp,
  usePayMerchant,
} from '../../support/pay-fixtures.ts';

/** The real client of a gateway, declaring that it refuses `methods` without the payer (as a live driver may). */
function declaring(client: PaymentGateway, methods: PaymentGateway['payerIdentityRequired']): PaymentGateway {
  return new Proxy(client, {
    get(target, property) {
      if (property === 'payerIdentityRequired') return methods;
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

test('the payer is asked for a boleto always, for every method on a page that asks, and where the gateway asks', () => {
  const emailAlone = { payerIdentityRequired: ['bank_slip'] as const };
  const pixNeedsPayer = { payerIdentityRequired: ['bank_slip', 'pix'] as const };
  assert.deepEqual(payerIdentityMethods(emailAlone, false), ['bank_slip']);
  assert.deepEqual(payerIdentityMethods(undefined, false), ['bank_slip']);
  assert.deepEqual(payerIdentityMethods(emailAlone, true), ['credit_card', 'pix', 'bank_slip']);
  assert.deepEqual(payerIdentityMethods(pixNeedsPayer, false), ['pix', 'bank_slip']);
  for (const gateway of ['gateway_a', 'gateway_b', 'gateway_c'] as const)
    assert.deepEqual(createGateway(gateway).payerIdentityRequired, ['bank_slip'], gateway);
});

for (const engine of engines()) {
  describe(`a page or a gateway that asks the payer's identity for Pix and card, on ${engine.name}`, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;
    let askingPage: string;

    usePayMerchant(engine, async (setup) => {
      ({ database, pay, merchant } = setup);
      askingPage = await insertPage(database.db, merchant, {
        products: [merchant.productId],
        plans: [merchant.cardPlanId, merchant.pixPlanId, merchant.boletoPlanId],
      });
      await database.db
        .updateTable('checkout_pages')
        .set({ asks_payer_identity: true })
        .where('id', '=', askingPage)
        .execute();
    });

    const post = (url: string, payload: Record<string, unknown>) =>
      pay.app.inject({ method: 'POST', url: `/api/v1${url}`, headers: ORIGIN, payload });
    const body = (pageId: string, email: string, extra: Record<string, unknown> = {}) => ({
      checkout_page_id: pageId,
      products: [{ id: merchant.productId, quantity: 1 }],
      customer_email: email,
      payment_plan_id: `${merchant.pixPlanId}-1`,
      ...extra,
    });
    const count = async (table: 'orders' | 'payments' | 'customers') =>
      Number(
        (
          await database.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .where('account_id', '=', merchant.accountId)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const counts = async () => [await count('orders'), await count('payments'), await count('customers')];
    const fields = (response: { json(): { details: Array<{ field: string }> } }) =>
      response
        .json()
        .details.map((detail) => detail.field)
        .sort();

    test('a page with asks_payer_identity refuses Pix and card without the payer with the boleto’s 422', async () => {
      const before = await counts();
      const pix = await post('/payments', body(askingPage, 'pix-anonymous@example.com'));
      assert.equal(pix.statusCode, 422, pix.body);
      assert.equal(pix.json().code, 'business_rule_violation');
      assert.match(pix.json().message, /Pix payment needs the payer's name and CPF\/CNPJ/);
      assert.deepEqual(fields(pix), ['body/customer_identification', 'body/customer_name']);
      const card = await post(
        '/payments',
        body(askingPage, 'card-anonymous@example.com', {
          payment_plan_id: `${merchant.cardPlanId}-1`,
          credit_card_0_token: await tokenA(pay.sandboxes),
          customer_name: 'Ana Souza',
        }),
      );
      assert.equal(card.statusCode, 422, card.body);
      assert.match(card.json().message, /card payment needs/);
      assert.deepEqual(fields(card), ['body/customer_identification']);
      assert.deepEqual(await counts(), before, 'nothing is written for a refused payment');
    });

    test('the same page takes Pix and card with the payer named, and stores the payer', async () => {
      const pix = await post('/payments', body(askingPage, 'pix-named@example.com', BOLETO_PAYER));
      assert.equal(pix.statusCode, 200, pix.body);
      const card = await post(
        '/payments',
        body(askingPage, 'card-named@example.com', {
          payment_plan_id: `${merchant.cardPlanId}-1`,
          credit_card_0_token: await tokenA(pay.sandboxes),
          ...BOLETO_PAYER,
        }),
      );
      assert.equal(card.statusCode, 200, card.body);
      assert.equal(card.json().order_status, 'paid');
      const stored = await database.db
        .selectFrom('customers')
        .select(['email', 'name', 'identification'])
        .where('account_id', '=', merchant.accountId)
        .where('email', 'in', ['pix-named@example.com', 'card-named@example.com'])
        .orderBy('email')
        .execute();
      assert.deepEqual(stored, [
        { email: 'card-named@example.com', name: 'Maria da Silva', identification: '52998224725' },
        { email: 'pix-named@example.com', name: 'Maria da Silva', identification: '52998224725' },
      ]);
      // The page that does not ask still takes a Pix on the e-mail alone.
      const plain = await post('/payments', body(merchant.pageId, 'pix-plain@example.com'));
      assert.equal(plain.statusCode, 200, plain.body);
    });

    test('a gateway whose Pix needs the payer: every page and cart on it asks, card still does not', async () => {
      const previous = usePayGatewayClients((name: GatewayName): PaymentGateway => {
        const client = createGateway(name, { timeoutMs: 1000 });
        if (name !== 'gateway_a') return client;
        return declaring(client, ['bank_slip', 'pix']);
      });
      try {
        const before = await counts();
        const page = await post('/payments', body(merchant.pageId, 'pix-gateway@example.com'));
        assert.equal(page.statusCode, 422, page.body);
        assert.deepEqual(fields(page), ['body/customer_identification', 'body/customer_name']);
        const cart = await insertCart(database, merchant, { customer: { email: 'cart-gateway@example.com' } });
        const cartPix = await post(`/carts/${cart}/pay`, { payment_plan_id: `${merchant.pixPlanId}-1` });
        assert.equal(cartPix.statusCode, 422, cartPix.body);
        assert.deepEqual(await counts(), before);
        const cardOk = await post(
          '/payments',
          body(merchant.pageId, 'card-gateway@example.com', {
            payment_plan_id: `${merchant.cardPlanId}-1`,
            credit_card_0_token: await tokenA(pay.sandboxes),
          }),
        );
        assert.equal(cardOk.statusCode, 200, cardOk.body);
        const named = await post(`/carts/${cart}/pay`, { payment_plan_id: `${merchant.pixPlanId}-1`, ...BOLETO_PAYER });
        assert.equal(named.statusCode, 200, named.body);
      } finally {
        usePayGatewayClients(previous);
      }
    });
  });
}
