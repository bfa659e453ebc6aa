import { basicAuthorization } from '../http.ts';
import { chargeTestCard, consumeToken, newCharge, savedCard, TOKEN_LIFETIME_MS } from '../sandbox/card-flow.ts';
import type { GatewaySandbox, SandboxContext } from '../sandbox/context.ts';
import { cancelOrRefundAll, refundPart, type ChargeEvent } from '../sandbox/lifecycle.ts';
import { issueBoleto, issuePix } from '../sandbox/payment-slips.ts';
import { answerRefund, takeRefundBehaviour } from '../sandbox/refund-behaviours.ts';
import { SandboxError, SandboxRouter, type SandboxRequest } from '../sandbox/router.ts';
import { companyIdOf, metadataFrom, sandboxId, type SandboxCharge } from '../sandbox/store.ts';
import { readTestCard } from '../sandbox/test-cards.ts';
import type { WebhookDelivery } from '../sandbox/webhooks.ts';
import { arrayAt, headerValue, integerAt, isObject, objectAt, stringAt } from '../wire.ts';
import type { GatewayAError, GatewayAToken } from './types.ts';
import { CANCELED_BY_MERCHANT, chargeView, orderView, refundView, webhooksFor } from './views.ts';

const MAX_PIX_SECONDS = 30 * 86_400;

/** gateway_a's sandbox: tokens, orders and charges in its own JSON, webhooks with HTTP Basic. */
export function createGatewayASandbox(context: SandboxContext): GatewaySandbox {
  const router = new SandboxRouter(renderError);
  const sandbox: GatewaySandbox = {
    context,
    router,
    notify: (charge, event) => notify(context, charge, event),
    view: chargeView,
  };
  const { store } = context;

  router.add('POST', '/tokens', (request) => ({ status: 200, body: createToken(context, request) }), { cors: true });
  router.add('POST', '/orders', (request) => {
    const owner = secretKeyOf(request);
    return store.idempotent(owner, headerValue(request.headers, 'idempotency-key'), async () => {
      const charge = await createOrder(context, request, owner);
      if (charge.method === 'credit_card')
        sandbox.notify(charge, { kind: charge.state === 'paid' ? 'paid' : 'failed' });
      return { status: 200, body: orderView(charge) };
    });
  });
  // Orders by their code (the merchant's reference), as a list: how a merchant finds a charge whose creation it never heard back from.
  router.add('GET', '/orders', (request) => {
    const owner = secretKeyOf(request);
    const code = typeof request.query.code === 'string' ? request.query.code : undefined;
    const orders = [...store.charges.values()]
      .filter((charge) => charge.owner === owner && (code === undefined || charge.refs.code === code))
      .map(orderView);
    return { status: 200, body: { data: orders, paging: { total: orders.length } } };
  });
  router.add('GET', '/charges/:id', (request) => ({ status: 200, body: chargeView(chargeOf(context, request)) }));
  router.add('POST', '/charges/:id/cancel', (request) => {
    const charge = chargeOf(context, request);
    return store.idempotent(charge.owner, headerValue(request.headers, 'idempotency-key'), async () => {
      const event = cancelOrRefundAll(charge, context.now());
      if (event.kind === 'refunded') charge.refs[CANCELED_BY_MERCHANT] = 'true';
      sandbox.notify(charge, event);
      return { status: 200, body: chargeView(charge) };
    });
  });
  router.add('POST', '/charges/:id/refund', (request) => {
    const charge = chargeOf(context, request);
    return store.idempotent(charge.owner, headerValue(request.headers, 'idempotency-key'), async () => {
      const amount = integerAt(request.body, 'amount');
      if (amount === undefined)
        throw new SandboxError(422, 'invalid_field', 'The amount is required (cents)', 'amount');
      const answer = await takeRefundBehaviour(context, request, charge);
      const event = refundPart(charge, amount, context.now(), stringAt(request.body, 'code') ?? null);
      if (event.kind !== 'refunded') throw new SandboxError(500, 'internal_error', 'A refund produced no refund');
      await answerRefund(context, request, answer, sandbox.notify(charge, event));
      const { refund } = event;
      return { status: 200, body: { ...refundView(refund), charge: chargeView(charge) } };
    });
  });
  return sandbox;
}

function renderError(error: SandboxError): GatewayAError {
  const message = error.status === 401 ? 'Authorization has been denied for this request.' : error.message;
  return error.param ? { message: 'The request is invalid.', errors: { [error.param]: [error.message] } } : { message };
}

/** The secret key, sent as the HTTP Basic user name. */
function secretKeyOf(request: SandboxRequest): string {
  const match = /^Basic +([A-Za-z0-9+/]+={0,2})$/i.exec(headerValue(request.headers, 'authorization') ?? '');
  const username = match ? Buffer.from(match[1]!, 'base64').toString('utf8').split(':')[0]! : '';
  if (!/^sk_[A-Za-z0-9_-]{8,}$/.test(username))
    throw new SandboxError(401, 'unauthorized', 'A secret key (sk_…) is required as the Basic user name');
  return username;
}

function chargeOf(context: SandboxContext, request: SandboxRequest): SandboxCharge {
  const charge = context.store.chargeOf(secretKeyOf(request), request.params.id!);
  if (!charge) throw new SandboxError(404, 'not_found', 'Charge not found');
  return charge;
}

function createToken(context: SandboxContext, request: SandboxRequest): GatewayAToken {
  const appId = typeof request.query.appId === 'string' ? request.query.appId : '';
  if (!/^pk_[A-Za-z0-9_-]{8,}$/.test(appId))
    throw new SandboxError(401, 'unauthorized', 'A publishable key (pk_…) is required as appId');
  const card = objectAt(request.body, 'card');
  const reading = readTestCard(
    {
      number: card?.number,
      holderName: card?.holder_name,
      expMonth: card?.exp_month,
      expYear: card?.exp_year,
      cvv: card?.cvv,
    },
    context.now(),
  );
  if ('field' in reading) throw new SandboxError(422, 'invalid_field', reading.message, `card.${reading.field}`);
  const now = context.now();
  const id = sandboxId('tok_');
  context.store.tokens.set(id, { card: reading.card, createdAt: now, used: false });
  const { card: known } = reading;
  return {
    id,
    type: 'card',
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + TOKEN_LIFETIME_MS).toISOString(),
    card: {
      first_six_digits: known.firstSix,
      last_four_digits: known.lastFour,
      brand: known.brand,
      holder_name: known.holderName,
      exp_month: known.expMonth,
      exp_year: known.expYear,
    },
  };
}

async function createOrder(context: SandboxContext, request: SandboxRequest, owner: string): Promise<SandboxCharge> {
  const { body } = request;
  const payment = arrayAt(body, 'payments')[0];
  const customer = objectAt(body, 'customer');
  if (!stringAt(customer, 'name') || !stringAt(customer, 'email'))
    throw new SandboxError(422, 'invalid_field', 'The customer name and email are required', 'customer');
  if (!isObject(payment)) throw new SandboxError(422, 'invalid_field', 'One payment is required', 'payments');
  const amount = integerAt(payment, 'amount');
  if (amount === undefined || amount < 1)
    throw new SandboxError(
      422,
      'invalid_field',
      'The amount must be a positive integer of cents',
      'payments[0].amount',
    );
  const draft = {
    id: sandboxId('ch_'),
    owner,
    amountCents: amount,
    description: stringAt(arrayAt(body, 'items')[0], 'description') ?? '',
    metadata: metadataFrom(objectAt(body, 'metadata')),
    refs: { order_id: sandboxId('or_'), transaction_id: sandboxId('tran_'), code: stringAt(body, 'code') ?? '' },
  };
  const method = stringAt(payment, 'payment_method');
  if (method === 'credit_card') {
    const details = objectAt(payment, 'credit_card');
    const installments = integerAt(details, 'installments') ?? 1;
    if (installments < 1 || installments > 12)
      throw new SandboxError(
        422,
        'invalid_field',
        'Installments go from 1 to 12',
        'payments[0].credit_card.installments',
      );
    const card = cardFor(context, owner, details);
    return chargeTestCard(context, request, { ...draft, method, installments }, card, {
      save: details?.save_card === true,
      savedPrefix: 'card_',
    });
  }
  const charge = newCharge({ ...draft, method: method === 'pix' ? 'pix' : 'boleto' }, context.now());
  if (method === 'pix') {
    const expiresIn = integerAt(objectAt(payment, 'pix'), 'expires_in');
    if (expiresIn === undefined || expiresIn < 1 || expiresIn > MAX_PIX_SECONDS)
      throw new SandboxError(
        422,
        'invalid_field',
        'expires_in must be 1 to 2592000 seconds',
        'payments[0].pix.expires_in',
      );
    charge.pix = issuePix(context, charge.id, new Date(context.now().getTime() + expiresIn * 1000));
  } else if (method === 'boleto') {
    const dueAt = stringAt(objectAt(payment, 'boleto'), 'due_at') ?? '';
    if (!/^\d{4}-\d{2}-\d{2}/.test(dueAt))
      throw new SandboxError(422, 'invalid_field', 'due_at must be an ISO 8601 date', 'payments[0].boleto.due_at');
    charge.boleto = issueBoleto(context, charge.id, amount, dueAt.slice(0, 10), {
      name: stringAt(customer, 'name') ?? null,
      document: stringAt(customer, 'document') ?? null,
    });
  } else {
    throw new SandboxError(
      422,
      'invalid_field',
      'payment_method must be credit_card, pix or boleto',
      'payments[0].payment_method',
    );
  }
  context.store.charges.set(charge.id, charge);
  return charge;
}

function cardFor(context: SandboxContext, owner: string, details: Record<string, unknown> | undefined) {
  const cardId = stringAt(details, 'card_id');
  if (cardId) {
    const card = savedCard(context, owner, cardId);
    if (!card) throw new SandboxError(422, 'invalid_field', 'Card not found', 'payments[0].credit_card.card_id');
    return card;
  }
  const token = stringAt(details, 'card_token');
  if (!token)
    throw new SandboxError(
      422,
      'invalid_field',
      'card_token or card_id is required',
      'payments[0].credit_card.card_token',
    );
  const card = consumeToken(context, token);
  if (typeof card === 'string')
    throw new SandboxError(
      422,
      'invalid_field',
      `The card token is ${card === 'unknown' ? 'unknown' : card}`,
      'payments[0].credit_card.card_token',
    );
  return card;
}

function notify(context: SandboxContext, charge: SandboxCharge, event: ChargeEvent): WebhookDelivery {
  const deliveries = webhooksFor(charge, event, context.now()).map((hook) =>
    context.webhooks.send(context.gateway, companyIdOf(charge), {
      eventId: hook.id,
      eventType: hook.type,
      contentType: 'application/json',
      body: JSON.stringify(hook),
      headers: (target): Record<string, string> =>
        target.basicAuth
          ? { authorization: basicAuthorization(target.basicAuth.username, target.basicAuth.password) }
          : {},
    }),
  );
  return deliveries[0]!;
}
