import { verifyWebhook as verifyGatewayB, inboundEventFrom as gatewayBEvent } from '../../gateways/gateway-b/index.ts';
import { inboundEventFrom as gatewayAEvent, webhookCompanyId } from '../../gateways/gateway-a/index.ts';
import type { WebhookHeaders } from '../../gateways/wire.ts';
import { AppError } from '../../http/errors.ts';
import { parseBankEvent, bankActions } from './bank-events.ts';
import { authenticateBasic, authenticateBasicByUsername, signingSecrets } from './credentials.ts';
import { paymentRefOf } from './event-order.ts';
import { parseInvoiceEvent } from './invoicing-events.ts';
import { gatewayEvent, parseJson } from './payloads.ts';
import { parsePlatformEvent } from './platform-events.ts';
import { acknowledgeEvent, type Acknowledgement } from './webhooks.service.ts';
import type { WebhookDeps } from './webhook-deps.ts';

export type ReceiverDeps = WebhookDeps;
export type Delivery = { headers: WebhookHeaders; rawBody: Buffer };

/** gateway_a: HTTP Basic of the company named by `data.metadata.company_id`. */
export async function receiveGatewayA(deps: ReceiverDeps, delivery: Delivery): Promise<Acknowledgement> {
  let body: unknown;
  try {
    body = parseJson(delivery.rawBody);
  } catch {
    body = undefined; // an unparsable body names no company: 401 below, like missing credentials
  }
  const tenant = await authenticateBasic(
    deps.db,
    deps.masterKey,
    'gateway_a',
    body === undefined ? null : webhookCompanyId(body),
    delivery.headers,
  );
  const event = gatewayEvent(() => gatewayAEvent(body));
  return acknowledgeEvent(deps, {
    receiver: 'gateway_a',
    ...tenant,
    eventId: event.eventId,
    type: event.type,
    payload: body,
    paymentRef: paymentRefOf(event.actions),
  });
}

/** gateway_b: `Gateway-B-Signature` with the company's current or previous signing secret. */
export async function receiveGatewayB(
  deps: ReceiverDeps,
  companyId: number | null,
  delivery: Delivery,
): Promise<Acknowledgement> {
  const found = companyId === null ? undefined : await signingSecrets(deps.db, deps.masterKey, 'gateway_b', companyId);
  if (!found || !verifyGatewayB(delivery.headers, delivery.rawBody, { secrets: found.secrets, now: deps.clock() })) {
    throw new AppError('invalid_signature', 'Missing or invalid Gateway-B-Signature');
  }
  const body = parseJson(delivery.rawBody);
  const event = gatewayEvent(() => gatewayBEvent(body));
  return acknowledgeEvent(deps, {
    receiver: 'gateway_b',
    ...found.tenant,
    eventId: event.eventId,
    type: event.type,
    payload: body,
    paymentRef: paymentRefOf(event.actions),
  });
}

export async function receiveBank(
  deps: ReceiverDeps,
  companyId: number | null,
  delivery: Delivery,
): Promise<Acknowledgement> {
  const tenant = await authenticateBasic(deps.db, deps.masterKey, 'bank', companyId, delivery.headers);
  const body = parseJson(delivery.rawBody);
  const event = parseBankEvent(body);
  const actions = bankActions(body); // also validates the fields of known types before the event is stored
  return acknowledgeEvent(deps, {
    receiver: 'bank',
    ...tenant,
    eventId: event.id,
    type: event.type,
    payload: body,
    paymentRef: paymentRefOf(actions),
  });
}

export async function receiveInvoicing(deps: ReceiverDeps, delivery: Delivery): Promise<Acknowledgement> {
  const tenant = await authenticateBasicByUsername(deps.db, deps.masterKey, 'invoicing', delivery.headers);
  const body = parseJson(delivery.rawBody);
  const event = parseInvoiceEvent(body);
  return acknowledgeEvent(deps, {
    receiver: 'invoicing',
    ...tenant,
    eventId: event.id,
    type: event.type,
    payload: body,
  });
}

/** No authentication (the spec's internal receiver): only events that schedule work, never move money. */
export async function receivePlatform(deps: ReceiverDeps, delivery: Delivery): Promise<Acknowledgement> {
  const body = parseJson(delivery.rawBody);
  const event = parsePlatformEvent(body);
  return acknowledgeEvent(deps, {
    receiver: 'platform',
    accountId: null,
    companyId: null,
    eventId: event.id,
    type: event.type,
    payload: body,
  });
}
