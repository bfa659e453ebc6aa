import { inboundEventFrom as gatewayCEvent } from '../../gateways/gateway-c/index.ts';
import type { PaymentAction } from '../../gateways/port.ts';
import { bankActions } from './bank-events.ts';
import { gatewayEvent, invalidPayload, isObject, requireCompanyId, requireString } from './payloads.ts';

/**
 * The `Message` of a topic notification, a JSON string:
 * `{ "source": "gateway_c", "company_id": 7, "postback": "<the form-encoded postback>" }` or
 * `{ "source": "bank", "company_id": 7, "event": <a bank event> }`.
 */
export type TopicMessage = { source: 'gateway_c' | 'bank'; companyId: number; body: unknown };

export function parseTopicMessage(message: unknown): TopicMessage {
  let parsed: unknown;
  try {
    parsed = JSON.parse(requireString(message, 'Message', 256 * 1024));
  } catch (error) {
    if (error instanceof SyntaxError) throw invalidPayload('Message must be a JSON object');
    throw error;
  }
  if (!isObject(parsed)) throw invalidPayload('Message must be a JSON object');
  const companyId = requireCompanyId(parsed.company_id, 'Message.company_id');
  if (parsed.source === 'gateway_c')
    return { source: 'gateway_c', companyId, body: requireString(parsed.postback, 'Message.postback', 64 * 1024) };
  if (parsed.source === 'bank') return { source: 'bank', companyId, body: parsed.event };
  throw invalidPayload('Message.source must be gateway_c or bank');
}

/** The actions of a message's inner event, validated as its direct receiver validates it: a 422 when invalid. */
export function messageActions(message: TopicMessage): PaymentAction[] {
  if (message.source === 'gateway_c') return gatewayEvent(() => gatewayCEvent(message.body)).actions;
  return bankActions(message.body);
}

/** The actions of a stored topic envelope (its `Message`). */
export function topicActions(envelope: unknown): { source: TopicMessage['source']; actions: PaymentAction[] } {
  const message = parseTopicMessage(isObject(envelope) ? envelope.Message : undefined);
  return { source: message.source, actions: messageActions(message) };
}
