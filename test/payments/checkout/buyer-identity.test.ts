import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Database } from '../../../src/db/database.ts';
import { engines } from '../../support/engines.ts';
import {
  BOLETO_PAYER,
  insertCart,
  insertCharge,
  ORIGIN,
  type Merchant,
  type PayApp,
  usePayMerchant,
} from '../../support/pay-fixtures.ts';

/** A CNPJ of the alphanumeric kind (letters before the two numeric check digits), valid. */
const ALPHANUMERIC_CNPJ = '12ABC34501DE35';

for (const engine of engines()) {
  describe(`the buyer's identity on the pay entry points on ${engine.name}`, { timeout: 120_000 }, () => {
    let database: Database;
    let pay: PayApp;
    let merchant: Merchant;

    usePayMerchant(engine, (setup) => ({ database, pay, merchant } = setup));

    const post = (url: string, payload: Record<string, unknown>) =>
      pay.app.inject({ method: 'POST', url: `/api/v1${url}`, headers: ORIGIN, payload });
    const checkoutBody = (email: string, extra: Record<string, unknown> = {}) => ({
      checkout_page_id: merchant.pageId,
      products: [{ id: merchant.productId, quantity: 1 }],
      customer_email: email,
      payment_plan_id: `${merchant.boletoPlanId}-1`,
      ...extra,
    });
    const counts = async () => ({
      orders: Number(
        (
          await database.db
            .selectFrom('orders')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('account_id', '=', merchant.accountId)
            .executeTakeFirstOrThrow()
        ).n,
      ),
      payments: Number(
        (
          await database.db
            .selectFrom('payments')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('account_id', '=', merchant.accountId)
            .executeTakeFirstOrThrow()
        ).n,
      ),
    });
    const customerByEmail = (email: string) =>
      database.db
        .selectFrom('customers')
        .select(['id', 'name', 'identification'])
        .where('account_id', '=', merchant.accountId)
        .where('email', '=', email)
        .executeTakeFirst();
    /** The payer the gateway sandbox registered the boleto with, from its ledger. */
    const gatewayPayer = async (gatewayId: string) => {
      for (const gateway of ['gateway_a', 'gateway_b', 'gateway_c'] as const) {
        const ledger = (await (await fetch(`${pay.sandboxes.baseUrlFor(gateway)}/sandbox/charges`)).json()) as {
          data: Array<{ id: string; payer?: unknown }>;
        };
        const charge = ledger.data.find((entry) => entry.id === gatewayId);
        if (charge) return charge.payer;
      }
      assert.fail(`no sandbox charge ${gatewayId}`);
    };

    test('a boleto without the payer’s name and document is a 422 naming both fields; nothing is created', async () => {
      const before = await counts();
      const res = await post('/payments', checkoutBody('nameless@example.com'));
      assert.equal(res.statusCode, 422, res.body);
      const body = res.json();
      assert.equal(body.code, 'business_rule_violation');
      assert.deepEqual(body.details.map((detail: { field: string }) => detail.field).sort(), [
        'body/customer_identification',
        'body/customer_name',
      ]);
      assert.deepEqual(await counts(), before);
      assert.equal(await customerByEmail('nameless@example.com'), undefined);
      const nameOnly = await post('/payments', checkoutBody('nameonly@example.com', { customer_name: 'Ana Souza' }));
      assert.equal(nameOnly.statusCode, 422, nameOnly.body);
      assert.deepEqual(
        nameOnly.json().details.map((detail: { field: string }) => detail.field),
        ['body/customer_identification'],
      );
      assert.deepEqual(await counts(), before);
    });

    test('a bad CPF is a 422 in the error format, before any write; pix needs no identity', async () => {
      const before = await counts();
      const res = await post(
        '/payments',
        checkoutBody('badcpf@example.com', { customer_name: 'Ana Souza', customer_identification: '529.982.247-24' }),
      );
      assert.equal(res.statusCode, 422, res.body);
      assert.equal(res.json().code, 'validation_failed');
      assert.equal(res.json().details[0].field, 'body/customer_identification');
      assert.ok(res.json().request_id);
      const tooLong = await post(
        '/payments',
        checkoutBody('badcpf@example.com', { customer_name: 'Ana', customer_identification: '1'.repeat(15) }),
      );
      assert.equal(tooLong.statusCode, 422, tooLong.body);
      assert.equal(tooLong.json().details[0].field, 'body/customer_identification');
      assert.deepEqual(await counts(), before);
      const pix = await post(
        '/payments',
        checkoutBody('pix-anon@example.com', { payment_plan_id: `${merchant.pixPlanId}-1` }),
      );
      assert.equal(pix.statusCode, 200, pix.body);
    });

    test('body fields (formatted CPF, alphanumeric CNPJ) are stored and travel to the gateway', async () => {
      const res = await post('/payments', checkoutBody('payer@example.com', BOLETO_PAYER));
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(await customerByEmail('payer@example.com'), {
        id: (await customerByEmail('payer@example.com'))!.id,
        name: 'Maria da Silva',
        identification: '52998224725',
      });
      assert.deepEqual(await gatewayPayer(res.json().payments[0]), { name: 'Maria da Silva', document: '52998224725' });
      const company = await post(
        '/payments',
        checkoutBody('company@example.com', {
          customer_name: 'Empresa Alfa Ltda',
          customer_identification: ALPHANUMERIC_CNPJ.toLowerCase(),
        }),
      );
      assert.equal(company.statusCode, 200, company.body);
      assert.deepEqual(await gatewayPayer(company.json().payments[0]), {
        name: 'Empresa Alfa Ltda',
        document: ALPHANUMERIC_CNPJ,
      });
    });

    test('the identity comes from customer_id, from a returning email, from the cart and from the charge', async () => {
      const first = await post('/payments', checkoutBody('returning@example.com', BOLETO_PAYER));
      assert.equal(first.statusCode, 200, first.body);
      const known = (await customerByEmail('returning@example.com'))!;
      const byEmail = await post('/payments', checkoutBody('returning@example.com'));
      assert.equal(byEmail.statusCode, 200, byEmail.body);
      const byId = await post('/payments', {
        ...checkoutBody('ignored@example.com'),
        customer_email: undefined,
        customer_id: known.id,
      });
      assert.equal(byId.statusCode, 200, byId.body);

      const cartWithIdentity = await insertCart(database, merchant, {
        customer: { email: 'cart-id@example.com', name: 'Cart Payer', identification: '111.444.777-35' },
      });
      const cart = await post(`/carts/${cartWithIdentity}/pay`, { payment_plan_id: `${merchant.boletoPlanId}-1` });
      assert.equal(cart.statusCode, 200, cart.body);
      assert.deepEqual(await gatewayPayer(cart.json().payments[0].gateway_id), {
        name: 'Cart Payer',
        document: '11144477735',
      });
      const anonymousCart = await insertCart(database, merchant, { customer: { email: 'cart-anon@example.com' } });
      const refused = await post(`/carts/${anonymousCart}/pay`, { payment_plan_id: `${merchant.boletoPlanId}-1` });
      assert.equal(refused.statusCode, 422, refused.body);
      const completed = await post(`/carts/${anonymousCart}/pay`, {
        payment_plan_id: `${merchant.boletoPlanId}-1`,
        ...BOLETO_PAYER,
      });
      assert.equal(completed.statusCode, 200, completed.body);

      const charge = await insertCharge(database, merchant);
      const chargeCustomer = await database.db
        .updateTable('customers')
        .set({ identification: null })
        .where(
          'id',
          '=',
          (
            await database.db
              .selectFrom('orders')
              .select('customer_id')
              .where('uid', '=', charge.uid)
              .executeTakeFirstOrThrow()
          ).customer_id!,
        )
        .returning('id')
        .executeTakeFirstOrThrow();
      const chargeRefused = await post(`/charges/${charge.uid}/pay`, { payment_plan_id: `${merchant.boletoPlanId}-1` });
      assert.equal(chargeRefused.statusCode, 422, chargeRefused.body);
      assert.deepEqual(
        chargeRefused.json().details.map((detail: { field: string }) => detail.field),
        ['body/customer_identification'],
      );
      const badCharge = await post(`/charges/${charge.uid}/pay`, {
        payment_plan_id: `${merchant.boletoPlanId}-1`,
        customer_identification: '00000000000',
      });
      assert.equal(badCharge.statusCode, 422, badCharge.body);
      assert.equal(badCharge.json().code, 'validation_failed');
      const chargePaid = await post(`/charges/${charge.uid}/pay`, {
        payment_plan_id: `${merchant.boletoPlanId}-1`,
        customer_identification: ALPHANUMERIC_CNPJ,
      });
      assert.equal(chargePaid.statusCode, 200, chargePaid.body);
      const updated = await database.db
        .selectFrom('customers')
        .select(['name', 'identification'])
        .where('id', '=', chargeCustomer.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(updated, { name: 'Charge Buyer', identification: ALPHANUMERIC_CNPJ });
    });
  });
}
