import { chargeTestCard, consumeToken, newCharge, savedCard } from '../sandbox/card-flow.ts';
import type { GatewaySandbox, SandboxContext } from '../sandbox/context.ts';
import { cancelOrRefundAll, refundPart, type ChargeEvent } from '../sandbox/lifecycle.ts';
import { issueBoleto, issuePix } from '../sandbox/payment-slips.ts';
import { answerRefund, takeRefundBehaviour } from '../sandbox/refund-behaviours.ts';
import { SandboxError, SandboxRouter, type SandboxReply, type SandboxRequest } from '../sandbox/router.ts';
import { companyIdOf, metadataFrom, refundedCents, sandboxId, type SandboxCharge } from '../sandbox/store.ts';
import type { TestCard } from '../sandbox/test-cards.ts';
import type { WebhookDelivery } from '../sandbox/webhooks.ts';
import { arrayAt, headerValue, integerAt, objectAt, stringAt } from '../wire.ts';
import { issueConfirmationToken } from './confirmation-tokens.ts';
import type { GatewayBError } from './types.ts';
import { eventFor, intentView, paymentErrorOf, refundView } from './views.ts';
import { signatureHeader } from './webhook.ts';

const DAY_SECONDS = 86_400;
const ERROR_CODES: Record<string, string> = {
  invalid_state: 'payment_intent_unexpected_state',
  already_refunded: 'charge_already_refunded',
  invalid_amount: 'parameter_invalid_integer',
};

/** gateway_b's sandbox: confirmation tokens, payment intents and refunds, webhooks signed `t=…,v1=…`. */
export function createGatewayBSandbox(context: SandboxContext): GatewaySandbox {
  const router = new SandboxRouter(renderError);
  const sandbox: GatewaySandbox = {
    context,
    router,
    notify: (charge, event) => notify(context, charge, event),
    view: (charge) => intentView(charge),
  };
  const { store } = context;
  const idempotencyKey = (request: SandboxRequest) => headerValue(request.headers, 'idempotency-key');

  router.add(
    'POST',
    '/v1/confirmation_tokens',
    (request) => ({ status: 200, body: issueConfirmationToken(context, request, keyOf(request, 'pk_')) }),
    { cors: true },
  );
  router.add('POST', '/v1/payment_intents', (request) => {
    const owner = keyOf(request, 'sk_');
    return store.idempotent(owner, idempotencyKey(request), () => createIntent(sandbox, request, owner));
  });
  // Registered before `/:id`, which would otherwise take `search` for an id.
  router.add('GET', '/v1/payment_intents/search', (request) => {
    const owner = keyOf(request, 'sk_');
    const query = /^metadata\['([A-Za-z0-9_]{1,40})'\]:'([^']{0,500})'$/.exec(
      typeof request.query.query === 'string' ? request.query.query : '',
    );
    if (!query)
      throw new SandboxError(
        400,
        'parameter_invalid_string',
        "This sandbox searches by one metadata field: query=metadata['key']:'value'.",
        'query',
      );
    const expand = new Set(
      [...expansions(request.query)].filter((path) => path.startsWith('data.')).map((path) => path.slice(5)),
    );
    const found = [...store.charges.values()].filter(
      (charge) => charge.owner === owner && charge.metadata[query[1]!] === query[2],
    );
    return {
      status: 200,
      body: {
        object: 'search_result',
        url: '/v1/payment_intents/search',
        has_more: false,
        data: found.map((charge) => intentView(charge, expand)),
      },
    };
  });
  router.add('GET', '/v1/payment_intents/:id', (request) => ({
    status: 200,
    body: intentView(intentOf(context, request), expansions(request.query)),
  }));
  router.add('POST', '/v1/payment_intents/:id/cancel', (request) => {
    const charge = intentOf(context, request);
    return store.idempotent(charge.owner, idempotencyKey(request), async () => {
      if (charge.state === 'paid') {
        const message = 'This PaymentIntent could not be canceled because it has a status of succeeded.';
        throw new SandboxError(400, 'payment_intent_unexpected_state', message, undefined, {
          payment_intent: intentView(charge),
        });
      }
      if (charge.state === 'waiting_payment') sandbox.notify(charge, cancelOrRefundAll(charge, context.now()));
      else if (charge.state !== 'cancelled') {
        Object.assign(charge, { state: 'cancelled', cancelledAt: context.now(), updatedAt: context.now() });
        sandbox.notify(charge, { kind: 'cancelled' });
      }
      return { status: 200, body: intentView(charge, expansions(request.body)) };
    });
  });
  router.add('POST', '/v1/refunds', (request) => {
    const owner = keyOf(request, 'sk_');
    return store.idempotent(owner, idempotencyKey(request), async () => {
      const intentId = stringAt(request.body, 'payment_intent');
      if (!intentId)
        throw new SandboxError(400, 'parameter_missing', 'Missing required param: payment_intent.', 'payment_intent');
      const charge = store.chargeOf(owner, intentId);
      if (!charge)
        throw new SandboxError(404, 'resource_missing', `No such payment_intent: '${intentId}'`, 'payment_intent');
      const amount = integerAt(request.body, 'amount') ?? charge.amountCents - refundedCents(charge);
      const answer = await takeRefundBehaviour(context, request, charge);
      const event = refundPart(
        charge,
        amount,
        context.now(),
        metadataFrom(objectAt(request.body, 'metadata')).reference ?? null,
      );
      if (event.kind !== 'refunded') throw new SandboxError(500, 'api_error', 'A refund produced no refund');
      await answerRefund(context, request, answer, sandbox.notify(charge, event));
      return { status: 200, body: refundView(charge, event.refund) };
    });
  });
  // The refunds of one payment intent, newest first.
  router.add('GET', '/v1/refunds', (request) => {
    const intentId = typeof request.query.payment_intent === 'string' ? request.query.payment_intent : '';
    const charge = store.chargeOf(keyOf(request, 'sk_'), intentId);
    if (!charge)
      throw new SandboxError(404, 'resource_missing', `No such payment_intent: '${intentId}'`, 'payment_intent');
    return {
      status: 200,
      body: {
        object: 'list',
        url: '/v1/refunds',
        has_more: false,
        data: [...charge.refunds].reverse().map((refund) => refundView(charge, refund)),
      },
    };
  });
  return sandbox;
}

function renderError(error: SandboxError): GatewayBError {
  const type =
    error.status === 401
      ? 'authentication_error'
      : error.status === 402
        ? 'card_error'
        : error.status >= 500
          ? 'api_error'
          : 'invalid_request_error';
  const body: GatewayBError = {
    error: { type, code: ERROR_CODES[error.code] ?? error.code, message: error.message, ...error.extra },
  };
  if (error.param) body.error.param = error.param;
  return body;
}

/** The Bearer key, which must be of the kind the endpoint takes (`pk_` in browsers, `sk_` on servers). */
function keyOf(request: SandboxRequest, prefix: 'pk_' | 'sk_'): string {
  const key = /^Bearer +(\S+)$/i.exec(headerValue(request.headers, 'authorization') ?? '')?.[1] ?? '';
  if (!key.startsWith(prefix) || key.length < 11) {
    const message =
      prefix === 'sk_' && key.startsWith('pk_')
        ? 'This API call cannot be made with a publishable API key.'
        : `Invalid API Key provided: expected a ${prefix}… key.`;
    throw new SandboxError(401, 'invalid_api_key', message);
  }
  return key;
}

function intentOf(context: SandboxContext, request: SandboxRequest): SandboxCharge {
  const charge = context.store.chargeOf(keyOf(request, 'sk_'), request.params.id!);
  if (!charge)
    throw new SandboxError(404, 'resource_missing', `No such payment_intent: '${request.params.id}'`, 'intent');
  return charge;
}

function expansions(source: unknown): Set<string> {
  return new Set(arrayAt(source, 'expand').filter((item): item is string => typeof item === 'string'));
}

async function createIntent(sandbox: GatewaySandbox, request: SandboxRequest, owner: string): Promise<SandboxReply> {
  const { context } = sandbox;
  const { body } = request;
  const amount = integerAt(body, 'amount');
  if (amount === undefined || amount < 1)
    throw new SandboxError(400, 'parameter_invalid_integer', 'amount must be a positive integer of cents.', 'amount');
  if (stringAt(body, 'currency') !== 'brl')
    throw new SandboxError(400, 'parameter_invalid_string', 'This sandbox charges in brl only.', 'currency');
  const types = arrayAt(body, 'payment_method_types');
  const method = types.length === 1 ? types[0] : undefined;
  const options = objectAt(body, 'payment_method_options');
  const draft = {
    id: sandboxId('pi_'),
    owner,
    amountCents: amount,
    description: stringAt(body, 'description') ?? '',
    metadata: metadataFrom(objectAt(body, 'metadata')),
    refs: { charge_id: sandboxId('ch_') },
  };
  if (method === 'card') {
    const card = cardOf(context, body, owner);
    const installments = integerAt(objectAt(objectAt(objectAt(options, 'card'), 'installments'), 'plan'), 'count') ?? 1;
    const save = stringAt(body, 'setup_future_usage') === 'off_session';
    const charge = await chargeTestCard(context, request, { ...draft, method: 'credit_card', installments }, card, {
      save,
      savedPrefix: 'pm_',
    });
    charge.refs.payment_method_id = charge.card?.savedMethodId ?? stringAt(body, 'payment_method') ?? sandboxId('pm_');
    const paid = charge.state === 'paid';
    sandbox.notify(charge, { kind: paid ? 'paid' : 'failed' });
    if (paid) return { status: 200, body: intentView(charge, expansions(body)) };
    const error = paymentErrorOf(charge)!;
    return {
      status: 402,
      body: renderError(
        new SandboxError(402, error.code, error.message, undefined, {
          decline_code: error.decline_code,
          charge: charge.refs.charge_id,
          payment_intent: intentView(charge),
        }),
      ),
    };
  }
  if (method !== 'pix' && method !== 'boleto')
    throw new SandboxError(
      400,
      'parameter_invalid_string',
      'payment_method_types must hold one of card, pix, boleto.',
      'payment_method_types',
    );
  const charge = newCharge(
    { ...draft, method, refs: { ...draft.refs, payment_method_id: sandboxId('pm_') } },
    context.now(),
  );
  const now = context.now().getTime();
  if (method === 'pix') {
    const expiresAt = integerAt(objectAt(options, 'pix'), 'expires_at') ?? Math.floor(now / 1000) + DAY_SECONDS;
    if (expiresAt * 1000 <= now || expiresAt * 1000 > now + 30 * DAY_SECONDS * 1000)
      throw new SandboxError(
        400,
        'parameter_invalid_integer',
        'expires_at must be within the next 30 days.',
        'payment_method_options[pix][expires_at]',
      );
    charge.pix = issuePix(context, charge.id, new Date(expiresAt * 1000));
  } else {
    const taxId = stringAt(objectAt(objectAt(body, 'payment_method_data'), 'boleto'), 'tax_id');
    if (taxId !== undefined && !/^(\d{11}|[0-9A-Z]{12}\d{2})$/.test(taxId))
      throw new SandboxError(
        400,
        'parameter_invalid_string',
        'tax_id must be a CPF (11 digits) or a CNPJ (14 characters).',
        'payment_method_data[boleto][tax_id]',
      );
    const dueDate =
      stringAt(objectAt(options, 'boleto'), 'due_date') ??
      new Date(now + 3 * DAY_SECONDS * 1000).toISOString().slice(0, 10);
    const billing = objectAt(objectAt(body, 'payment_method_data'), 'billing_details');
    charge.boleto = issueBoleto(context, charge.id, amount, dueDate, {
      name: stringAt(billing, 'name') ?? null,
      document: taxId ?? null,
    });
  }
  context.store.charges.set(charge.id, charge);
  return { status: 200, body: intentView(charge, expansions(body)) };
}

function cardOf(context: SandboxContext, body: unknown, owner: string): TestCard {
  const methodId = stringAt(body, 'payment_method');
  if (methodId) {
    const card = savedCard(context, owner, methodId);
    if (!card)
      throw new SandboxError(400, 'resource_missing', `No such PaymentMethod: '${methodId}'`, 'payment_method');
    return card;
  }
  const tokenId = stringAt(body, 'confirmation_token');
  if (!tokenId)
    throw new SandboxError(
      400,
      'parameter_missing',
      'A card payment intent needs confirmation_token (made by the browser library) or a saved payment_method.',
      'confirmation_token',
    );
  const card = consumeToken(context, tokenId);
  if (typeof card === 'string')
    throw new SandboxError(
      400,
      'resource_missing',
      `No such confirmation_token: '${tokenId}' (${card})`,
      'confirmation_token',
    );
  return card;
}

function notify(context: SandboxContext, charge: SandboxCharge, event: ChargeEvent): WebhookDelivery {
  const payload = eventFor(charge, event, context.now());
  const body = JSON.stringify(payload, null, 2);
  return context.webhooks.send(context.gateway, companyIdOf(charge), {
    eventId: payload.id,
    eventType: payload.type,
    contentType: 'application/json',
    body,
    headers: (target, sentAt): Record<string, string> =>
      target.signingSecret
        ? { 'gateway-b-signature': signatureHeader(target.signingSecret, body, Math.floor(sentAt.getTime() / 1000)) }
        : {},
  });
}
