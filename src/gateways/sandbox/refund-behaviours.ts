import type { SandboxContext } from './context.ts';
import { SandboxError, type SandboxRequest } from './router.ts';
import type { SandboxCharge } from './store.ts';
import type { WebhookDelivery } from './webhooks.ts';
import { pause } from './webhooks.ts';

/**
 * Consumes the behaviour the `next_refund` action armed on a charge, before its refund is made: a refusal
 * (422) or an acquirer error (500) refunds nothing; a timeout holds the call (until the caller hangs up or
 * `holdMs` passes), answers 504 and refunds nothing. Returns true when the refund is to be answered only
 * after its webhook's first delivery attempt (`webhook_first`), so the merchant hears of the refund
 * before its own call returns.
 */
export async function takeRefundBehaviour(context: SandboxContext, request: SandboxRequest, charge: SandboxCharge): Promise<boolean> {
  const behaviour = charge.nextRefund;
  charge.nextRefund = null;
  if (behaviour === 'refuse') throw new SandboxError(422, 'refund_refused', 'The acquirer refused the refund (sandbox next_refund: refuse)');
  if (behaviour === 'error') throw new SandboxError(500, 'acquirer_error', 'The acquirer failed to answer the refund (sandbox next_refund: error)');
  if (behaviour === 'timeout') {
    await pause(context.holdMs, AbortSignal.any([request.signal, context.signal]));
    throw new SandboxError(504, 'acquirer_timeout', 'The acquirer did not answer the refund in time (sandbox next_refund: timeout)');
  }
  return behaviour === 'webhook_first';
}

/** Waits for the refund webhook's first delivery attempt when the behaviour asked for it. */
export async function answerAfterWebhook(context: SandboxContext, webhookFirst: boolean, delivery: WebhookDelivery): Promise<void> {
  if (webhookFirst) await context.webhooks.attempted(delivery);
}
