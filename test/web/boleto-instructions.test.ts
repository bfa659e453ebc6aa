import assert from 'node:assert/strict';
import { test } from 'node:test';
import { boletoInstructions } from '../../src/web/payment-pages/boleto-sheet.ts';

const NONE = { fine_type: 'percentage', fine_cents: 0, fine_tax: 0, plan_late_interest_cents: 0, late_interest_tax: 0 };

test('the instructions state the plan’s fine and late-interest terms, or that none is charged', () => {
  assert.equal(boletoInstructions(NONE)[0], 'Não cobrar multa nem juros após o vencimento.');
  assert.equal(
    boletoInstructions({ ...NONE, fine_tax: 2, late_interest_tax: 1 })[0],
    'Após o vencimento, cobrar multa de 2% sobre o valor e juros de mora de 1% ao mês (pro rata por dia de atraso).',
  );
  assert.equal(
    boletoInstructions({ ...NONE, fine_type: 'fixed', fine_cents: 500, fine_tax: 2, plan_late_interest_cents: 150 })[0],
    'Após o vencimento, cobrar multa de R$ 5,00 e juros fixos de R$ 1,50.',
  );
  assert.equal(
    boletoInstructions({ ...NONE, late_interest_tax: 0.5 })[0],
    'Após o vencimento, cobrar juros de mora de 0,5% ao mês (pro rata por dia de atraso).',
  );
  // A payment without a plan (no terms known) charges nothing after the due date.
  assert.equal(
    boletoInstructions({
      fine_type: null,
      fine_cents: null,
      fine_tax: null,
      plan_late_interest_cents: null,
      late_interest_tax: null,
    })[0],
    'Não cobrar multa nem juros após o vencimento.',
  );
});
