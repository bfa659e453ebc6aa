import qs from 'qs';
import { chargeTestCard, newCharge, savedCard } from '../sandbox/card-flow.ts';
import type { GatewaySandbox, SandboxContext } from '../sandbox/context.ts';
import { cancelOrRefundAll, refundPart, type ChargeEvent } from '../sandbox/lifecycle.ts';
import { issueBoleto, issuePix } from '../sandbox/payment-slips.ts';
import { answerRefund, takeRefundBehaviour } from '../sandbox/refund-behaviours.ts';
import { SandboxError, SandboxRouter, type SandboxRequest } from '../sandbox/router.ts';
import { companyIdOf, metadataFrom, sandboxId, type SandboxCharge } from '../sandbox/store.ts';
import { readTestCard, type TestCard } from '../sandbox/test-cards.ts';
import type { WebhookDelivery } from '../sandbox/webhooks.ts';
import { integerAt, objectAt, stringAt } from '../wire.ts';
import { CardHashKeys, parseCardHashPlaintext } from './card-hash.ts';
import type { GatewayCError } from './types.ts';
import { postbackFor, transactionView } from './views.ts';
import { postbackSignature } from './webhook.ts';

const FIRST_TRANSACTION_ID = 7_000_001;
const CARD_HASH_REFUSALS = {
  malformed: 'The card_hash is malformed: expected <key id>_<base64>',
  unknown_key: 'The card hash key does not exist',
  used_key: 'The card hash key was already used: ask for a new one',
  expired_key: 'The card hash key expired: keys live 5 minutes',
  undecryptable: 'The card hash could not be decrypted with its key',
} as const;

/** gateway_c's sandbox: card hash keys, transactions, refunds, and postbacks signed with the api key. */
export function createGatewayCSandbox(context: SandboxContext): GatewaySandbox {
  const router = new SandboxRouter((error) => renderError(error));
  const sandbox: GatewaySandbox = {
    context,
    router,
    notify: (charge, event) => notify(context, charge, event),
    view: transactionView,
  };
  const keys = new CardHashKeys();
  let nextTransactionId = FIRST_TRANSACTION_ID;

  router.add(
    'POST',
    '/card_hash_keys',
    async (request) => {
      if (!/^ek_[A-Za-z0-9_-]{8,}$/.test(stringAt(request.body, 'encryption_key') ?? ''))
        throw new SandboxError(401, 'action_forbidden', 'encryption_key is missing or invalid', 'encryption_key');
      return { status: 200, body: await keys.create(context.now()) };
    },
    { cors: true },
  );
  router.add('POST', '/transactions', (request) => {
    const owner = apiKeyOf(request.body);
    return context.store.idempotent(owner, stringAt(request.body, 'reference_key'), async () => {
      const charge = await createTransaction(context, request, owner, keys, String(nextTransactionId++));
      if (charge.method === 'credit_card')
        sandbox.notify(charge, { kind: charge.state === 'paid' ? 'paid' : 'failed' });
      return { status: 200, body: transactionView(charge) };
    });
  });
  router.add('GET', '/transactions', (request) => {
    const owner = apiKeyOf(request.query);
    const reference = typeof request.query.reference_key === 'string' ? request.query.reference_key : undefined;
    const found = [...context.store.charges.values()].filter(
      (charge) => charge.owner === owner && (reference === undefined || charge.refs.reference_key === reference),
    );
    return { status: 200, body: found.map(transactionView) };
  });
  router.add('GET', '/transactions/:id', (request) => ({
    status: 200,
    body: transactionView(transactionOf(context, request, apiKeyOf(request.query))),
  }));
  router.add('POST', '/transactions/:id/refund', (request) => {
    const charge = transactionOf(context, request, apiKeyOf(request.body));
    return context.store.idempotent(charge.owner, stringAt(request.body, 'reference_key'), async () => {
      const amount = integerAt(request.body, 'amount');
      const answer = await takeRefundBehaviour(context, request, charge);
      const reference = stringAt(request.body, 'reference_key') ?? null;
      const event =
        amount === undefined
          ? cancelOrRefundAll(charge, context.now(), reference)
          : refundPart(charge, amount, context.now(), reference);
      await answerRefund(context, request, answer, sandbox.notify(charge, event));
      return { status: 200, body: transactionView(charge) };
    });
  });
  return sandbox;
}

function renderError(error: SandboxError): GatewayCError {
  const type =
    error.status === 401
      ? 'action_forbidden'
      : error.status === 404
        ? 'not_found'
        : error.status === 409
          ? 'invalid_state'
          : error.status >= 500
            ? 'internal_error'
            : 'invalid_parameter';
  return { errors: [{ type, parameter_name: error.param ?? null, message: error.message }], url: '', method: '' };
}

function apiKeyOf(source: unknown): string {
  const apiKey = stringAt(source, 'api_key') ?? '';
  if (!/^ak_[A-Za-z0-9_-]{8,}$/.test(apiKey))
    throw new SandboxError(401, 'action_forbidden', 'api_key is missing or invalid', 'api_key');
  return apiKey;
}

function transactionOf(context: SandboxContext, request: SandboxRequest, owner: string): SandboxCharge {
  const charge = context.store.chargeOf(owner, request.params.id!);
  if (!charge) throw new SandboxError(404, 'not_found', 'Transaction not found', 'transaction');
  return charge;
}

async function createTransaction(
  context: SandboxContext,
  request: SandboxRequest,
  owner: string,
  keys: CardHashKeys,
  id: string,
): Promise<SandboxCharge> {
  const { body } = request;
  const amount = integerAt(body, 'amount');
  if (amount === undefined || amount < 1)
    throw new SandboxError(400, 'invalid_parameter', 'amount must be a positive integer of cents', 'amount');
  const draft = {
    id,
    owner,
    amountCents: amount,
    metadata: metadataFrom(objectAt(body, 'metadata')),
    refs: { reference_key: stringAt(body, 'reference_key') ?? '', card_id: sandboxId('card_') },
  };
  const method = stringAt(body, 'payment_method');
  if (method === 'credit_card') {
    const installments = integerAt(body, 'installments') ?? 1;
    if (installments < 1 || installments > 12)
      throw new SandboxError(400, 'invalid_parameter', 'installments go from 1 to 12', 'installments');
    const card = cardOf(context, body, owner, keys);
    return chargeTestCard(context, request, { ...draft, method, installments }, card, {
      save: true,
      savedPrefix: 'card_',
    });
  }
  if (method !== 'pix' && method !== 'boleto')
    throw new SandboxError(
      400,
      'invalid_parameter',
      'payment_method must be credit_card, pix or boleto',
      'payment_method',
    );
  const charge = newCharge({ ...draft, method }, context.now());
  if (method === 'pix') {
    const expiresAt = new Date(stringAt(body, 'pix_expiration_date') ?? '');
    if (Number.isNaN(expiresAt.getTime()) || expiresAt <= context.now())
      throw new SandboxError(
        400,
        'invalid_parameter',
        'pix_expiration_date must be a future ISO 8601 time',
        'pix_expiration_date',
      );
    charge.pix = issuePix(context, charge.id, expiresAt);
  } else {
    const customer = objectAt(body, 'customer');
    charge.boleto = issueBoleto(context, charge.id, amount, stringAt(body, 'boleto_expiration_date') ?? '', {
      name: stringAt(customer, 'name') ?? null,
      document: stringAt(customer, 'document_number') ?? null,
    });
  }
  context.store.charges.set(charge.id, charge);
  return charge;
}

/** The test card behind a saved card id or a card hash (decrypted with the key's private half). */
function cardOf(context: SandboxContext, body: unknown, owner: string, keys: CardHashKeys): TestCard {
  const cardId = stringAt(body, 'card_id');
  if (cardId) {
    const card = savedCard(context, owner, cardId);
    if (!card) throw new SandboxError(400, 'invalid_parameter', 'Card not found', 'card_id');
    return card;
  }
  const opened = keys.open(stringAt(body, 'card_hash') ?? '', context.now());
  if ('refusal' in opened)
    throw new SandboxError(400, 'invalid_parameter', CARD_HASH_REFUSALS[opened.refusal], 'card_hash');
  const fields = parseCardHashPlaintext(opened.plaintext);
  if (!fields)
    throw new SandboxError(
      400,
      'invalid_parameter',
      'The card hash does not hold card_number, card_holder_name, card_expiration_date and card_cvv',
      'card_hash',
    );
  const reading = readTestCard(fields, context.now());
  if ('field' in reading) throw new SandboxError(400, 'invalid_parameter', reading.message, 'card_hash');
  return reading.card;
}

function notify(context: SandboxContext, charge: SandboxCharge, event: ChargeEvent): WebhookDelivery {
  const postback = postbackFor(charge, event);
  const body = qs.stringify(postback, { encodeValuesOnly: false });
  return context.webhooks.send(context.gateway, companyIdOf(charge), {
    eventId: postback.postback_id,
    eventType: `${postback.event}:${postback.current_status}`,
    contentType: 'application/x-www-form-urlencoded',
    body,
    headers: () => ({ 'x-hub-signature': postbackSignature(charge.owner, body) }),
  });
}
