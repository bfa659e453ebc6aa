import { signTimestamped } from '../../lib/timestamp-signature.ts';

export const SIGNATURE_HEADER = 'Checkout-Signature';

export type SignedRequest = {
  eventId: string;
  eventType: string;
  deliveryId: string;
  attempt: number;
  body: string;
  secrets: readonly string[];
  now: Date;
};

/**
 * The headers of one delivery attempt. `Checkout-Signature: t=<unix>,v1=<hex>[,v1=<hex>]` is HMAC-SHA256
 * over `<t>.<raw body>` with each signing secret (two during a rotation), the same scheme the gateway_b
 * receiver verifies. The event id is stable across attempts and redeliveries: receivers deduplicate on it.
 */
export function deliveryHeaders(request: SignedRequest): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'checkout-notifications/1',
    [SIGNATURE_HEADER.toLowerCase()]: signTimestamped(
      request.secrets,
      request.body,
      Math.floor(request.now.getTime() / 1000),
    ),
    'checkout-event-id': request.eventId,
    'checkout-event-type': request.eventType,
    'checkout-delivery-id': request.deliveryId,
    'checkout-delivery-attempt': String(request.attempt),
  };
}

/** The body of every attempt of one event: the same bytes each time, signed fresh with the attempt's timestamp. */
export function eventBody(event: { id: string; type: string; created_at: Date; data: unknown }): string {
  return JSON.stringify({
    id: event.id,
    type: event.type,
    created_at: event.created_at.toISOString(),
    data: event.data,
  });
}
