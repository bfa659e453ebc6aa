import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import {
  contextTotal,
  databaseReads,
  type PricingQuery,
  resolvePricingContext,
} from '../../modules/payment-plans/index.ts';
import { formatBrl } from '../payment-pages/html.ts';
import type { SummaryLine } from './order-summary.ts';

type ChargeAmounts = {
  uid: string;
  total_cents: number;
  freight_cents: number;
  discount_cents: number;
  coupon_code: string | null;
};

/**
 * What explains a charge's total next to its items: the summary lines (what the items cost, discount, freight, what
 * was already paid, and when overdue the fine and late interest GET /payment_plans adds) and the notes (what is
 * left to pay of a partly paid charge); with them the quote's base, which the page shows as its total. The items
 * cost what the charge totals before its discount and freight, so the lines add up to the base.
 */
export async function chargeNotes(
  db: Kysely<DB>,
  charge: ChargeAmounts,
  now: Date,
): Promise<{ notes: string[]; lines: SummaryLine[]; baseCents?: number }> {
  const notes: string[] = [];
  const lines: SummaryLine[] = [
    { kind: 'subtotal', label: 'Subtotal', cents: charge.total_cents + charge.discount_cents - charge.freight_cents },
  ];
  if (charge.discount_cents > 0)
    lines.push({
      kind: 'discount',
      label: `Desconto${charge.coupon_code ? ` (cupom ${charge.coupon_code})` : ''}`,
      cents: -charge.discount_cents,
    });
  if (charge.freight_cents > 0) lines.push({ kind: 'freight', label: 'Frete', cents: charge.freight_cents });
  const query: PricingQuery = { charge_id: charge.uid };
  try {
    const reads = databaseReads(db);
    const context = await resolvePricingContext(db, query, async () => undefined, reads);
    if (context.kind !== 'charge') return { notes, lines };
    const { overdue, baseCents } = await contextTotal(db, reads, context, query, now);
    const paidCents = charge.total_cents - context.owedCents;
    if (paidCents > 0) {
      lines.push({ kind: 'paid', label: 'Pago antes', cents: -paidCents });
      notes.push(`Já pago: ${formatBrl(paidCents)}. Falta pagar: ${formatBrl(context.owedCents)}`);
    }
    if (overdue && overdue.fineCents > 0)
      lines.push({ kind: 'fine', label: 'Multa por atraso', cents: overdue.fineCents });
    if (overdue && overdue.lateInterestCents > 0) {
      lines.push({
        kind: 'late-interest',
        label: `Juros de mora (${overdue.daysLate} ${overdue.daysLate === 1 ? 'dia' : 'dias'} de atraso)`,
        cents: overdue.lateInterestCents,
      });
    }
    return { notes, lines, baseCents };
  } catch {
    // The plans answer the same error and the page says so; the lines keep what the order itself tells.
    return { notes, lines };
  }
}
