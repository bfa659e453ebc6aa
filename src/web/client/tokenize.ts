import { call, getJson } from './api.ts';
import { encryptPkcs1v15 } from './rsa.ts';

export type Card = { number: string; holder: string; month: string; year: string; cvv: string };
export type Gateway = { name: string; url: string; publicKey: string; cardHashPath: string };
export type Tokenized = { token: string } | { error: string };

/** Card data goes only to the gateway (or, for gateway_c, is encrypted here); the service gets the token. */
export async function tokenizeCard(gateway: Gateway, card: Card): Promise<Tokenized> {
  if (gateway.name === 'gateway_a') return gatewayAToken(gateway, card);
  if (gateway.name === 'gateway_b') return gatewayBToken(gateway, card);
  if (gateway.name === 'gateway_c') return gatewayCHash(gateway, card);
  return { error: 'unsupported' };
}

async function gatewayAToken(gateway: Gateway, card: Card): Promise<Tokenized> {
  const answer = await call(`${gateway.url}/tokens?appId=${encodeURIComponent(gateway.publicKey)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      type: 'card',
      card: {
        number: card.number,
        holder_name: card.holder,
        exp_month: Number(card.month),
        exp_year: Number(card.year),
        cvv: card.cvv,
      },
    }),
  });
  return answer.status === 200 && typeof answer.body?.id === 'string'
    ? { token: answer.body.id }
    : { error: 'declined' };
}

async function gatewayBToken(gateway: Gateway, card: Card): Promise<Tokenized> {
  const form = new URLSearchParams({
    'payment_method_data[type]': 'card',
    'payment_method_data[card][number]': card.number,
    'payment_method_data[card][exp_month]': card.month,
    'payment_method_data[card][exp_year]': card.year,
    'payment_method_data[card][cvc]': card.cvv,
    'payment_method_data[billing_details][name]': card.holder,
  });
  const answer = await call(`${gateway.url}/v1/confirmation_tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.publicKey}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  return answer.status === 200 && typeof answer.body?.id === 'string'
    ? { token: answer.body.id }
    : { error: 'declined' };
}

async function gatewayCHash(gateway: Gateway, card: Card): Promise<Tokenized> {
  const key = await getJson(gateway.cardHashPath);
  if (key.status !== 200 || typeof key.body?.public_key !== 'string') return { error: 'unavailable' };
  const plaintext = [
    ['card_number', card.number],
    ['card_holder_name', card.holder],
    ['card_expiration_date', card.month.padStart(2, '0') + card.year.slice(-2)],
    ['card_cvv', card.cvv],
  ]
    .map(([name, value]) => `${name}=${encodeURIComponent(value!)}`)
    .join('&');
  return { token: `${key.body.id}_${encryptPkcs1v15(key.body.public_key, new TextEncoder().encode(plaintext))}` };
}
