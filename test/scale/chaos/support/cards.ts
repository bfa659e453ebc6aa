/** The card field a browser would send for each gateway, made against the real sandboxes and API. */

import { constants, publicEncrypt } from 'node:crypto';
import type { GatewayName } from '../../../../src/gateways/port.ts';
import { containsCardNumber } from '../../../../src/lib/card-numbers.ts';
import { CARDS, confirmationTokenB, tokenA } from '../../../support/pay-fixtures.ts';
import type { GatewayUrls } from './fleet.ts';
import type { Traffic } from './traffic.ts';

export { CARDS };

/**
 * gateway_a: a tokenizer token; gateway_b: a confirmation token; gateway_c: a card hash made with a key the
 * API issues for the page or cart (`contextPath`, e.g. `/api/v1/carts/<id>`). Undefined when the key could
 * not be had (the process answering died).
 */
export async function cardFields(
  traffic: Traffic,
  gateways: GatewayUrls,
  gateway: GatewayName,
  contextPath: string,
  op: string,
  number: string = CARDS.approved,
): Promise<Record<string, string> | undefined> {
  const sandboxes = { baseUrlFor: (name: GatewayName) => gateways[name] };
  if (gateway === 'gateway_a') return { credit_card_0_token: await tokenA(sandboxes, number) };
  if (gateway === 'gateway_b') return { confirmation_token_id: await confirmationTokenB(sandboxes, number) };
  for (let attempt = 0; attempt < 5; attempt++) {
    const issued = await traffic.send('card_hash_key', 'GET', `${contextPath}/card_hash_key`, { op });
    if (issued.status !== 200) return undefined;
    const key = issued.body as { id: number; public_key: string };
    const plaintext = `card_number=${number}&card_holder_name=MARIA%20DA%20SILVA&card_expiration_date=1231&card_cvv=123`;
    const hash = `${key.id}_${publicEncrypt({ key: key.public_key, padding: constants.RSA_PKCS1_PADDING }, Buffer.from(plaintext)).toString('base64')}`;
    // A random hash now and then holds a digit run the raw-card-number guard refuses; a browser would retry too.
    if (!containsCardNumber({ token: hash })) return { credit_card_0_token: hash };
  }
  return undefined;
}
