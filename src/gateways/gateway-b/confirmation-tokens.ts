import { TOKEN_LIFETIME_MS } from '../sandbox/card-flow.ts';
import type { SandboxContext } from '../sandbox/context.ts';
import { SandboxError, type SandboxRequest } from '../sandbox/router.ts';
import { sandboxId } from '../sandbox/store.ts';
import { readTestCard } from '../sandbox/test-cards.ts';
import { objectAt, stringAt } from '../wire.ts';
import type { GatewayBConfirmationToken } from './types.ts';

const FIELD_PARAMS = {
  number: 'payment_method_data[card][number]',
  holder_name: 'payment_method_data[billing_details][name]',
  exp_month: 'payment_method_data[card][exp_month]',
  exp_year: 'payment_method_data[card][exp_year]',
  cvv: 'payment_method_data[card][cvc]',
} as const;

/** `POST /v1/confirmation_tokens` with a publishable key: what the browser library does with the card form. */
export function issueConfirmationToken(
  context: SandboxContext,
  request: SandboxRequest,
  _publishableKey: string,
): GatewayBConfirmationToken {
  const data = objectAt(request.body, 'payment_method_data');
  if (stringAt(data, 'type') !== 'card')
    throw new SandboxError(
      400,
      'parameter_invalid_string',
      'payment_method_data[type] must be card.',
      'payment_method_data[type]',
    );
  const card = objectAt(data, 'card');
  const name = stringAt(objectAt(data, 'billing_details'), 'name');
  const reading = readTestCard(
    { number: card?.number, holderName: name, expMonth: card?.exp_month, expYear: card?.exp_year, cvv: card?.cvc },
    context.now(),
  );
  if ('field' in reading) {
    const code = reading.message.includes('expired')
      ? 'expired_card'
      : reading.field === 'number'
        ? 'incorrect_number'
        : 'parameter_invalid_string';
    throw new SandboxError(402, code, reading.message, FIELD_PARAMS[reading.field]);
  }
  const now = context.now();
  const id = sandboxId('ctoken_');
  context.store.tokens.set(id, { card: reading.card, createdAt: now, used: false });
  const { card: known } = reading;
  return {
    id,
    object: 'confirmation_token',
    created: Math.floor(now.getTime() / 1000),
    expires_at: Math.floor((now.getTime() + TOKEN_LIFETIME_MS) / 1000),
    livemode: false,
    payment_method_preview: {
      type: 'card',
      card: {
        brand: known.brand,
        last4: known.lastFour,
        exp_month: known.expMonth,
        exp_year: known.expYear,
        funding: 'credit',
      },
      billing_details: { name: known.holderName },
    },
  };
}
