import type { SandboxContext } from './context.ts';
import { SandboxError, type SandboxRequest } from './router.ts';
import { sandboxId, type ChargeMethod, type SandboxCharge } from './store.ts';
import type { TestCard } from './test-cards.ts';
import { pause } from './webhooks.ts';

export type ChargeDraft = {
  id: string;
  owner: string;
  method: ChargeMethod;
  amountCents: number;
  installments?: number;
  description?: string;
  metadata: Record<string, string>;
  refs?: Record<string, string>;
};

/** A new charge record with everything not yet known left empty. */
export function newCharge(draft: ChargeDraft, now: Date): SandboxCharge {
  return {
    id: draft.id,
    owner: draft.owner,
    method: draft.method,
    state: 'waiting_payment',
    amountCents: draft.amountCents,
    installments: draft.installments ?? 1,
    description: draft.description ?? '',
    metadata: draft.metadata,
    createdAt: now,
    updatedAt: now,
    paidAt: null,
    cancelledAt: null,
    failure: null,
    card: null,
    pix: null,
    boleto: null,
    refunds: [],
    dispute: null,
    refs: draft.refs ?? {},
    nextRefund: null,
  };
}

/**
 * Charges a test card the way its number says: approved or declined charges are recorded (and returned);
 * the gateway-error card answers 500 and the timeout card holds the request, both leaving no charge. The
 * late-approval card holds the request whether or not the caller is still there, then records an
 * approved charge and answers it (to nobody, when the caller timed out).
 */
export async function chargeTestCard(
  context: SandboxContext,
  request: SandboxRequest,
  draft: ChargeDraft,
  card: TestCard,
  saving: { save: boolean; savedPrefix: string },
): Promise<SandboxCharge> {
  if (card.behaviour === 'gateway_error')
    throw new SandboxError(500, 'acquirer_error', 'The acquirer failed to answer (test card ending 0119)');
  if (card.behaviour === 'gateway_timeout') {
    await pause(context.holdMs, AbortSignal.any([request.signal, context.signal]));
    throw new SandboxError(504, 'acquirer_timeout', 'The acquirer did not answer in time (test card ending 0259)');
  }
  if (card.behaviour === 'approved_late') await pause(context.holdMs, context.signal);
  const now = context.now();
  const charge = newCharge(draft, now);
  charge.card = { ...card, savedMethodId: null };
  if (card.behaviour === 'approved' || card.behaviour === 'approved_late') {
    charge.state = 'paid';
    charge.paidAt = now;
    if (saving.save) charge.card.savedMethodId = saveCard(context, draft.owner, card, saving.savedPrefix);
  } else {
    charge.state = 'failed';
    charge.failure =
      card.behaviour === 'insufficient_funds'
        ? { code: 'insufficient_funds', message: 'Insufficient funds' }
        : { code: 'declined', message: 'The card was declined by the issuer' };
  }
  context.store.charges.set(charge.id, charge);
  return charge;
}

function saveCard(context: SandboxContext, owner: string, card: TestCard, prefix: string): string {
  const id = sandboxId(prefix);
  context.store.savedCards.set(id, { owner, card });
  return id;
}

/** The test card behind a saved-card reference of this owner, or undefined. */
export function savedCard(context: SandboxContext, owner: string, reference: string): TestCard | undefined {
  const saved = context.store.savedCards.get(reference);
  return saved?.owner === owner ? saved.card : undefined;
}

/** Tokens are single-use and live 30 minutes; the card they stand for, or a reason to refuse them. */
export function consumeToken(context: SandboxContext, tokenId: string): TestCard | 'unknown' | 'used' | 'expired' {
  const token = context.store.tokens.get(tokenId);
  if (!token) return 'unknown';
  if (token.used) return 'used';
  token.used = true;
  if (context.now().getTime() - token.createdAt.getTime() > TOKEN_LIFETIME_MS) return 'expired';
  return token.card;
}

export const TOKEN_LIFETIME_MS = 30 * 60_000;
