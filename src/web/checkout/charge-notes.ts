import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import {
  contextTotal,
  databaseReads,
  type PricingQuery,
  resolvePricingContext,
} from '../../modules/payment-plans/index.ts';
import { formatBrl } from '../payment-pages/html.ts';

type ChargeAmounts = {
  uid: string;
  total_cents: number;
  freight_cents: number;
  discount_cents: number;
  coupon_code: string | null;
};

/**
 * The lines that explain a charge's total next to its items: freight, discount, what was already paid (a
 * partly paid charge is priced on the rest) and, when overdue, the fine and late interest GET /payment_plans adds;
 * with them the quote's base, which the page shows as its total.
 */
export async function chargeNotes(
  db: Kysely<DB>,
  charge: ChargeAmounts,
  now: Date,
): Promise<{ notes: string[]; baseCents?: number }> {
  const notes: string[] = [];
  if (charge.freight_cents > 0) notes.push(`Frete: ${formatBrl(charge.freight_cents)}`);
  if (charge.discount_cents > 0)
    notes.push(
      `Desconto${charge.coupon_code ? ` (cupom ${charge.coupon_code})` : ''}: ${formatBrl(charge.discount_cents)}`,
    );
  const query: PricingQuery = { charge_id: charge.uid };
  try {
    const reads = databaseReads(db);
    const context = await resolvePricingContext(db, query, async () => undefined, reads);
    if (context.kind !== 'charge') return { notes };
    const { overdue, baseCents } = await contextTotal(db, reads, context, query, now);
    const paidCents = charge.total_cents - context.owedCents;
    if (paidCents > 0) notes.push(`Já pago: ${formatBrl(paidCents)}. Falta pagar: ${formatBrl(context.owedCents)}`);
    if (overdue && overdue.fineCents > 0) notes.push(`Multa por atraso: ${formatBrl(overdue.fineCents)}`);
    if (overdue && overdue.lateInterestCents > 0) {
      notes.push(
        `Juros de mora (${overdue.daysLate} ${overdue.daysLate === 1 ? 'dia' : 'dias'} de atraso): ${formatBrl(overdue.lateInterestCents)}`,
      );
    }
    return { notes, baseCents };
  } catch {
    // The plans answer the same error and the page says so; the notes keep what the order itself tells.
    return { notes };
  }
}
