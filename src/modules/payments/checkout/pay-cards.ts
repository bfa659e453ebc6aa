import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import { AppError, businessRule } from '../../../http/errors.ts';
import { hasAtMostTwoDecimals, toCents } from '../../../lib/money.ts';
import {
  type PaymentPlanQuote,
  type PricingContext,
  type PricingQuery,
  quoteOptionInContext,
} from '../../payment-plans/index.ts';

/** The card fields of every pay body. */
export type CardFields = {
  payment_plan_id: string;
  confirmation_token_id?: string;
  credit_card_0_token?: string;
  credit_card_0_card_id?: string;
  credit_card_0_payment_plan?: string;
  credit_card_0_amount?: number;
  credit_card_1_token?: string;
  credit_card_1_card_id?: string;
  credit_card_1_payment_plan?: string;
  credit_card_1_amount?: number;
};

/** One card to charge: its token (or saved card id) and the server's quote of its share. */
export type PlannedCard = {
  index: 0 | 1;
  token?: string;
  confirmationTokenId?: string;
  savedMethodId?: string;
  quote: PaymentPlanQuote;
  /** The part of the order total this card covers (its quote adds this plan's interest on top). */
  principalCents: number;
};

const field = (name: string, message: string) => [{ field: `body/${name}`, message }];

function cents(value: number, name: string): number {
  if (!hasAtMostTwoDecimals(value))
    throw businessRule(`${name} has more than two decimals`, field(name, 'at most two decimals'));
  return toCents(value);
}

const CARD_FIELDS = [
  'confirmation_token_id',
  'credit_card_0_token',
  'credit_card_0_card_id',
  'credit_card_0_payment_plan',
  'credit_card_0_amount',
  'credit_card_1_token',
  'credit_card_1_card_id',
  'credit_card_1_payment_plan',
  'credit_card_1_amount',
] as const;

/** A pix or boleto payment takes no card field: one sent means the client and the server disagree on the method. */
export function assertNoCardFields(body: CardFields): void {
  const sent = CARD_FIELDS.filter((name) => body[name] !== undefined);
  if (sent.length)
    throw businessRule(
      `Card fields were sent with a plan that is not a credit card plan: ${sent.join(', ')}`,
      sent.map((name) => ({ field: `body/${name}`, message: 'only for a credit card plan' })),
    );
}

export function isSplit(body: CardFields): boolean {
  return [
    body.credit_card_1_token,
    body.credit_card_1_card_id,
    body.credit_card_1_amount,
    body.credit_card_1_payment_plan,
  ].some((value) => value !== undefined);
}

/** Card n's token or saved card: exactly one of them (gateway_b takes its confirmation token instead). */
function cardSource(
  body: CardFields,
  index: 0 | 1,
  gateway: string,
): Pick<PlannedCard, 'token' | 'confirmationTokenId' | 'savedMethodId'> {
  const record = body as Record<string, unknown>;
  const token = record[`credit_card_${index}_token`] as string | undefined;
  const savedMethodId = record[`credit_card_${index}_card_id`] as string | undefined;
  if (token !== undefined && savedMethodId !== undefined)
    throw businessRule(
      `Send credit_card_${index}_token or credit_card_${index}_card_id, not both`,
      field(`credit_card_${index}_token`, 'not both'),
    );
  if (savedMethodId !== undefined) return { savedMethodId };
  if (gateway === 'gateway_b') {
    const confirmation = index === 0 ? (body.confirmation_token_id ?? token) : token;
    if (confirmation === undefined)
      throw businessRule(
        'confirmation_token_id is required for a gateway_b card payment',
        field(index === 0 ? 'confirmation_token_id' : 'credit_card_1_token', 'is required'),
      );
    return { confirmationTokenId: confirmation };
  }
  if (token === undefined)
    throw businessRule(
      `credit_card_${index}_token or credit_card_${index}_card_id is required`,
      field(`credit_card_${index}_token`, 'is required'),
    );
  return { token };
}

/**
 * The cards of a credit card payment. One card pays the quote of `payment_plan_id`; a client amount must
 * be the order total or the quoted total. A split needs both sets with an amount and a plan each; the
 * amounts must add up to the order total (before interest), and each share is quoted on its own plan:
 * the share is the base of that plan's interest and fee (the same rule as a whole order).
 */
export async function planCards(
  db: Kysely<DB>,
  input: {
    body: CardFields;
    quote: PaymentPlanQuote;
    context: PricingContext;
    query: PricingQuery;
    gateway: string;
    enableTwoCards: boolean;
    now: Date;
  },
): Promise<PlannedCard[]> {
  const { body, quote } = input;
  if (!isSplit(body)) {
    // One card pays under `payment_plan_id`: a different plan named for it would be silently ignored.
    if (body.credit_card_0_payment_plan !== undefined && body.credit_card_0_payment_plan !== body.payment_plan_id) {
      throw businessRule(
        'credit_card_0_payment_plan differs from payment_plan_id on a one-card payment',
        field('credit_card_0_payment_plan', 'must be payment_plan_id, or be left out, on a one-card payment'),
      );
    }
    if (body.credit_card_0_amount !== undefined) {
      const sent = cents(body.credit_card_0_amount, 'credit_card_0_amount');
      if (sent !== quote.baseCents && sent !== quote.totalCents)
        throw businessRule(
          'credit_card_0_amount does not match the amount of this order',
          field('credit_card_0_amount', 'does not match the order'),
        );
    }
    return [{ index: 0, ...cardSource(body, 0, input.gateway), quote, principalCents: quote.baseCents }];
  }
  if (!input.enableTwoCards)
    throw businessRule(
      'Two-card payments are not enabled here',
      field('credit_card_1_token', 'two cards are not enabled'),
    );
  const cards: PlannedCard[] = [];
  let sum = 0;
  for (const index of [0, 1] as const) {
    const record = body as Record<string, unknown>;
    const amount = record[`credit_card_${index}_amount`] as number | undefined;
    const plan = record[`credit_card_${index}_payment_plan`] as string | undefined;
    if (amount === undefined || plan === undefined)
      throw businessRule(
        `A two-card payment needs credit_card_${index}_amount and credit_card_${index}_payment_plan`,
        field(`credit_card_${index}_amount`, 'is required for a split'),
      );
    const share = cents(amount, `credit_card_${index}_amount`);
    if (share <= 0)
      throw businessRule(
        `credit_card_${index}_amount must be positive`,
        field(`credit_card_${index}_amount`, 'must be positive'),
      );
    sum += share;
    const source = cardSource(body, index, input.gateway);
    const shareQuote = await quoteShare(db, input, share, plan, index);
    if (shareQuote.paymentMethod !== 'credit_card')
      throw businessRule(
        `credit_card_${index}_payment_plan is not a credit card plan`,
        field(`credit_card_${index}_payment_plan`, 'not a credit card plan'),
      );
    cards.push({ index, ...source, quote: shareQuote, principalCents: share });
  }
  if (sum !== quote.baseCents)
    throw businessRule(
      'The two card amounts must add up to the order total',
      field('credit_card_1_amount', `the amounts must add up to ${(quote.baseCents / 100).toFixed(2)}`),
    );
  return cards;
}

/** Card n's share quoted on its own plan; a plan or count the share cannot take names that card's plan field. */
async function quoteShare(
  db: Kysely<DB>,
  input: { context: PricingContext; query: PricingQuery; now: Date },
  shareCents: number,
  plan: string,
  index: 0 | 1,
): Promise<PaymentPlanQuote> {
  try {
    return await quoteOptionInContext(db, input.context, { ...input.query, amount: shareCents / 100 }, plan, input.now);
  } catch (error) {
    if (!(error instanceof AppError) || error.status !== 422) throw error;
    const name = `credit_card_${index}_payment_plan`;
    const message = error.message.replaceAll('payment_plan_id', name);
    throw new AppError(error.code, message, [{ field: `body/${name}`, message }]);
  }
}
