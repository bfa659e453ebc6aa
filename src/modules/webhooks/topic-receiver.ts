import { AppError } from '../../http/errors.ts';
import { isObject, parseJson, requireString } from './payloads.ts';
import { paymentRefOf } from './event-order.ts';
import { hostAllowed, verifySnsMessage, type TopicOptions } from './sns-signature.ts';
import { messageActions, parseTopicMessage } from './topic-messages.ts';
import type { Delivery, ReceiverDeps } from './receivers.ts';
import { receiveAndProcessEvent } from './webhooks.service.ts';
import { findCompany } from './webhooks.repo.ts';

export type TopicAnswer = { status: 'confirmed' | 'processed' | 'ignored' | 'received' | 'duplicate' | 'unsubscribed' };

const rejected = (message: string) => new AppError('forbidden', message);

/**
 * An SNS-format message: signature and TopicArn first; a SubscriptionConfirmation is confirmed by GETting
 * its SubscribeURL; a Notification is stored and processed in the request (unlike the other receivers),
 * idempotent by MessageId, because a processing failure must answer 503 for the sender to retry.
 */
export async function receiveTopic(
  deps: ReceiverDeps,
  options: TopicOptions,
  delivery: Delivery,
): Promise<TopicAnswer> {
  const message = parseJson(delivery.rawBody);
  if (!isObject(message) || typeof message.Type !== 'string' || typeof message.MessageId !== 'string')
    throw new AppError('validation_failed', 'Not a topic message');
  if (typeof message.TopicArn !== 'string' || !options.topicArns.includes(message.TopicArn))
    throw rejected('Unexpected TopicArn');
  if (!(await verifySnsMessage(message, options))) throw rejected('Invalid topic message signature');
  if (message.Type === 'SubscriptionConfirmation') {
    const url = typeof message.SubscribeURL === 'string' ? message.SubscribeURL : '';
    if (!hostAllowed(url, options)) throw rejected('SubscribeURL host not allowed');
    const response = await options
      .fetch(url, { redirect: 'error', signal: AbortSignal.timeout(5_000) })
      .catch(() => undefined);
    if (!response?.ok) throw new AppError('service_unavailable', 'Could not confirm the subscription');
    return { status: 'confirmed' };
  }
  if (message.Type === 'UnsubscribeConfirmation') return { status: 'unsubscribed' };
  if (message.Type !== 'Notification') throw new AppError('validation_failed', 'Unknown topic message type');
  const messageId = requireString(message.MessageId, 'MessageId'); // the dedup key, capped as every receiver's event id
  const parsed = parseTopicMessage(message.Message);
  // An invalid inner event is refused before it is stored: a 4xx tells the sender not to retry what no retry can fix.
  const actions = messageActions(parsed);
  const company = await findCompany(deps.db, parsed.companyId);
  if (!company) throw new AppError('validation_failed', 'Message.company_id names no company');
  const receipt = await receiveAndProcessEvent(deps, {
    receiver: 'topic',
    accountId: company.account_id,
    companyId: company.id,
    eventId: messageId,
    type: `${parsed.source}.message`,
    payload: message,
    paymentRef: paymentRefOf(actions),
  });
  // Also when an earlier event of the payment has not been applied yet: the sender's retry (or the job) applies it in turn.
  if (receipt.error) throw new AppError('service_unavailable', 'The message could not be processed; retry later');
  return {
    status:
      receipt.duplicate && receipt.status !== 'received' ? 'duplicate' : (receipt.status as TopicAnswer['status']),
  };
}
