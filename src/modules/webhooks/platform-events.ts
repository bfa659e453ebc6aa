import { enqueueJob } from '../../queue/outbox.ts';
import { RECONCILE_JOB } from '../payments/index.ts';
import { invalidPayload, isObject, requireString } from './payloads.ts';
import type { ProcessOutcome, WebhookDeps } from './webhook-deps.ts';
import { findPaymentByUid, type StoredEvent } from './webhooks.repo.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type PlatformEvent = { id: string; type: string; paymentUid?: string };

/** `{ id, type: 'payment.reconcile_requested', data: { payment_id: <payment uid> } }`; other types are stored and ignored. */
export function parsePlatformEvent(body: unknown): PlatformEvent {
  if (!isObject(body)) throw invalidPayload('A platform event is { id, type, data }');
  const id = requireString(body.id, 'id');
  const type = requireString(body.type, 'type', 100);
  if (type !== 'payment.reconcile_requested') return { id, type };
  const paymentUid = requireString(isObject(body.data) ? body.data.payment_id : undefined, 'data.payment_id');
  if (!UUID.test(paymentUid)) throw invalidPayload('data.payment_id must be a payment id (uuid)');
  return { id, type, paymentUid };
}

/** Enqueues a reconciliation of the payment (the gateway's status is fetched and applied by the job). */
export async function applyPlatformEvent(deps: WebhookDeps, event: StoredEvent): Promise<ProcessOutcome> {
  const parsed = parsePlatformEvent(event.payload);
  const payment = parsed.paymentUid ? await findPaymentByUid(deps.db, parsed.paymentUid) : undefined;
  if (!payment) return 'ignored';
  await enqueueJob(deps.db, {
    type: RECONCILE_JOB,
    payload: { account_id: payment.account_id, payment_id: payment.id },
    accountId: payment.account_id,
    dedupKey: `${RECONCILE_JOB}:${payment.id}`,
  });
  return 'processed';
}
