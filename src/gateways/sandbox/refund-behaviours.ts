import type { SandboxContext } from './context.ts';
import { SandboxError, type SandboxRequest } from './router.ts';
import type { SandboxCharge } from './store.ts';
import type { WebhookDelivery } from './webhooks.ts';
import { pause } from './webhooks.ts';

/** How a refund that is made is answered: at once, after its webhook's first delivery attempt, or never (held, then 504). */
export type RefundAnswer = 'now' | 'after_webhook' | 'held';

/**
 * Consumes the behaviour the `next_refund` action armed on a charge, before its refund is made: a refusal
 * (422) or an acquirer error (500) refunds nothing; a timeout holds the call (until the caller hangs up or
 * `holdMs` passes), answers 504 and refunds nothing. Otherwise the refund is made, and the result says how it
 * is answered: after its webhook's first delivery attempt (`webhook_first`, so the merchant hears of the refund
 * before its own call returns), or not at all (`late`: refunded, its webhook sent, the call held then 504, as
 * when an acquirer's answer is lost on the way back).
 */
export async function takeRefundBehaviour(
  context: SandboxContext,
  request: SandboxRequest,
  charge: SandboxCharge,
): Promise<RefundAnswer> {
  const behaviour = charge.nextRefund;
  charge.nextRefund = null;
  if (behaviour === 'refuse')
    throw new SandboxError(422, 'refund_refused', 'The acquirer refused the refund (sandbox next_refund: refuse)');
  if (behaviour === 'error')
    throw new SandboxError(
      500,
      'acquirer_error',
      'The acquirer failed to answer the refund (sandbox next_refund: error)',
    );
  if (behaviour === 'timeout')
    await holdThenTimeOut(
      context,
      request,
      'The acquirer did not answer the refund in time (sandbox next_refund: timeout)',
    );
  return behaviour === 'webhook_first' ? 'after_webhook' : behaviour === 'late' ? 'held' : 'now';
}

/** Answers a refund that was made as its behaviour asked: waits for its webhook's first delivery attempt, or holds the call and answers 504. */
export async function answerRefund(
  context: SandboxContext,
  request: SandboxRequest,
  answer: RefundAnswer,
  delivery: WebhookDelivery,
): Promise<void> {
  if (answer === 'after_webhook') await context.webhooks.attempted(delivery);
  if (answer === 'held')
    await holdThenTimeOut(
      context,
      request,
      'The acquirer refunded but its answer was lost (sandbox next_refund: late)',
    );
}

async function holdThenTimeOut(context: SandboxContext, request: SandboxRequest, message: string): Promise<never> {
  await pause(context.holdMs, AbortSignal.any([request.signal, context.signal]));
  throw new SandboxError(504, 'acquirer_timeout', message);
}
