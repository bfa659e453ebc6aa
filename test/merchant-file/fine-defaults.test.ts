import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { applyMerchant } from '../../src/modules/merchant-file/merchant-apply.ts';
import type { MerchantDocument } from '../../src/modules/merchant-file/merchant-document.ts';
import { engines } from '../support/engines.ts';

const document = (): MerchantDocument => ({
  account: { name: 'Multas', slug: 'multas' },
  companies: [
    {
      slug: 'multas-loja',
      name: 'Multas Loja',
      payment_plans: [
        { ref: 'boleto-padrao', name: 'Boleto', payment_method: 'bank_slip' },
        { ref: 'boleto-proprio', name: 'Boleto próprio', payment_method: 'bank_slip', fine_tax: 1.5 },
      ],
    },
  ],
});

for (const engine of engines()) {
  describe(`the company's default fine terms on ${engine.name}`, () => {
    let database: Database;
    const masterKey = randomBytes(32);
    before(async () => (database = await engine.open()));
    after(() => database.close());

    const plans = async () =>
      (
        await database.db
          .selectFrom('payment_plans')
          .select(['ref', 'fine_type', 'fine_cents', 'fine_tax', 'late_interest_cents', 'late_interest_tax'])
          .orderBy('ref')
          .execute()
      ).map((plan) => ({
        ...plan,
        fine_cents: Number(plan.fine_cents),
        fine_tax: Number(plan.fine_tax),
        late_interest_cents: Number(plan.late_interest_cents),
        late_interest_tax: Number(plan.late_interest_tax),
      }));

    test('a plan without its own terms takes the defaults at apply; its own terms win', async () => {
      await applyMerchant(database, masterKey, document(), { now: new Date() });
      assert.deepEqual(
        (await plans()).map((plan) => [plan.ref, plan.fine_tax, plan.late_interest_tax]),
        [
          ['boleto-padrao', 0, 0],
          ['boleto-proprio', 1.5, 0],
        ],
      );
      await database.db
        .updateTable('companies')
        .set({ default_fine_type: 'fixed', default_fine_cents: 350, default_late_interest_tax: 0.0333 })
        .where('slug', '=', 'multas-loja')
        .execute();
      await applyMerchant(database, masterKey, document(), { now: new Date() });
      const [standard, own] = await plans();
      assert.deepEqual(standard, {
        ref: 'boleto-padrao',
        fine_type: 'fixed',
        fine_cents: 350,
        fine_tax: 0,
        late_interest_cents: 0,
        late_interest_tax: 0.0333,
      });
      assert.equal(own!.fine_type, 'fixed');
      assert.equal(own!.fine_tax, 1.5);
    });
  });
}
