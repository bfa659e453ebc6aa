import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { sumOf } from '../../lib/money.ts';
import { type PaymentStatus, sameAttempt, SETTLED_PAYMENT_STATUSES } from '../../modules/payments/index.ts';
import { formatBrl, html, type SafeHtml } from '../payment-pages/html.ts';
import { findChargeOutcome, findOrderPayments } from './checkout.repo.ts';
import { messageBody } from './checkout.view.ts';

type PaymentAmount = { status: string; amount_cents: number; created_at: Date };

const settled = (payment: PaymentAmount) => SETTLED_PAYMENT_STATUSES.includes(payment.status as PaymentStatus);
const sum = (payments: PaymentAmount[]) => sumOf(payments, (payment) => payment.amount_cents);

/**
 * What the buyer paid, not the order's total: the last paid attempt (the settled payments of one pay request,
 * interest, fine and late interest included, both cards of a two-card payment) and everything paid on the
 * charge. `awaitingCents`: the newest payment still waiting (a Pix or boleto not yet paid).
 */
export function paidAmounts(payments: PaymentAmount[]): {
  attemptCents?: number;
  paidCents: number;
  awaitingCents?: number;
} {
  const paid = payments.filter(settled);
  const latest = paid[0];
  const awaiting = payments.find((payment) => payment.status === 'pending' || payment.status === 'waiting_payment');
  return {
    ...(latest !== undefined ? { attemptCents: sum(paid.filter((payment) => sameAttempt(payment, latest))) } : {}),
    paidCents: sum(paid),
    ...(awaiting ? { awaitingCents: awaiting.amount_cents } : {}),
  };
}

/** The body of `/pay/charges/{uid}/done`, or undefined for an unknown charge. */
export async function chargeDoneBody(db: Kysely<DB>, uid: string): Promise<SafeHtml | undefined> {
  const charge = await findChargeOutcome(db, uid);
  if (!charge) return undefined;
  const amounts = paidAmounts(await findOrderPayments(db, charge.account_id, charge.id));
  const paid = charge.status === 'paid' || charge.status === 'billed';
  const company = charge.company_name;
  if (paid) {
    const attempt = amounts.attemptCents ?? charge.total_cents;
    const earlier =
      amounts.paidCents > attempt
        ? html`<p class="muted">Total pago nesta cobrança: ${formatBrl(amounts.paidCents)}.</p>`
        : '';
    return messageBody(
      'Pagamento confirmado',
      `Obrigado! O pagamento de ${formatBrl(attempt)} para ${company} foi confirmado.`,
      html`${earlier}<p class="status success" role="status">Situação: pago</p>`,
    );
  }
  const what =
    amounts.awaitingCents !== undefined ? `o pagamento de ${formatBrl(amounts.awaitingCents)}` : 'o pagamento';
  return messageBody(
    'Recebemos o seu pedido',
    `Obrigado! Assim que ${what} para ${company} for confirmado, você receberá um aviso.`,
    html`<p class="status" role="status">Situação: aguardando confirmação</p>`,
  );
}
