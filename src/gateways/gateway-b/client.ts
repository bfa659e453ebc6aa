import qs from 'qs';
import { GatewayRequestError, requestErrorCode } from '../errors.ts';
import {
  callGateway,
  DEFAULT_GATEWAY_TIMEOUT_MS,
  gatewayUrl,
  type GatewayClientOptions,
  type GatewayResponse,
} from '../http.ts';
import {
  GatewayUnavailableError,
  type BoletoCharge,
  type BoletoIssued,
  type CardCharge,
  type CardOutcome,
  type ChargeReference,
  type FoundCharge,
  type FoundRefund,
  type GatewayAccount,
  type InboundEvent,
  type PaymentGateway,
  type PixCharge,
  type PixIssued,
  type RemoteStatus,
  type SavedMethodCharge,
} from '../port.ts';
import { objectAt, stringAt } from '../wire.ts';
import {
  boletoIntentForm,
  boletoIssuedFrom,
  cardIntentForm,
  cardOutcomeFrom,
  declinedFrom,
  foundChargeFrom,
  inboundEventFrom,
  pixIntentForm,
  pixIssuedFrom,
  savedMethodIntentForm,
  type IntentForm,
} from './transformers.ts';
import type { GatewayBError, GatewayBPaymentIntent, GatewayBRefund } from './types.ts';

type Failure = GatewayBError['error'];

/** gateway_b over HTTP: every payment is a payment intent confirmed on creation. */
export class GatewayBClient implements PaymentGateway {
  readonly name = 'gateway_b' as const;
  /** A boleto is registered with its payer; Pix and card charges take the e-mail alone. */
  readonly payerIdentityRequired = ['bank_slip'] as const;
  readonly #timeoutMs: number;

  constructor(options: GatewayClientOptions = {}) {
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_GATEWAY_TIMEOUT_MS;
  }

  chargeCard(account: GatewayAccount, charge: CardCharge): Promise<CardOutcome> {
    return this.#chargeCard(account, cardIntentForm(charge), charge.idempotencyKey);
  }

  chargeSavedMethod(account: GatewayAccount, charge: SavedMethodCharge): Promise<CardOutcome> {
    return this.#chargeCard(account, savedMethodIntentForm(charge), charge.idempotencyKey);
  }

  async createPix(account: GatewayAccount, charge: PixCharge): Promise<PixIssued> {
    return pixIssuedFrom(
      this.#intent(
        await this.#send(account, 'POST', '/v1/payment_intents', pixIntentForm(charge), charge.idempotencyKey),
      ),
    );
  }

  async createBoleto(account: GatewayAccount, charge: BoletoCharge): Promise<BoletoIssued> {
    return boletoIssuedFrom(
      this.#intent(
        await this.#send(account, 'POST', '/v1/payment_intents', boletoIntentForm(charge), charge.idempotencyKey),
      ),
    );
  }

  /** Cancels an unpaid intent; a succeeded one cannot be cancelled, so it is refunded in full instead. */
  async voidCharge(account: GatewayAccount, gatewayId: string, idempotencyKey: string): Promise<void> {
    const response = await this.#send(
      account,
      'POST',
      `/v1/payment_intents/${encodeURIComponent(gatewayId)}/cancel`,
      {},
      idempotencyKey,
    );
    const failure = failureOf(response);
    if (failure?.code === 'payment_intent_unexpected_state' && failure.payment_intent?.status === 'succeeded') {
      this.#refund(
        await this.#send(account, 'POST', '/v1/refunds', { payment_intent: gatewayId }, `${idempotencyKey}:refund`),
      );
      return;
    }
    this.#intent(response);
  }

  async refund(
    account: GatewayAccount,
    gatewayId: string,
    amountCents: number,
    idempotencyKey: string,
  ): Promise<{ refundId: string }> {
    const refund = this.#refund(
      await this.#send(
        account,
        'POST',
        '/v1/refunds',
        { payment_intent: gatewayId, amount: amountCents, metadata: { reference: idempotencyKey } },
        idempotencyKey,
      ),
    );
    return { refundId: refund.id };
  }

  async fetchStatus(account: GatewayAccount, gatewayId: string): Promise<RemoteStatus> {
    return (await this.fetchCharge(account, gatewayId)).status;
  }

  /** The intent with its latest charge (refunds, disputes) and its payment method (the card it saved) expanded. */
  async fetchCharge(account: GatewayAccount, gatewayId: string): Promise<FoundCharge> {
    const path = `/v1/payment_intents/${encodeURIComponent(gatewayId)}?${qs.stringify({ expand: ['latest_charge', 'payment_method'] }, { arrayFormat: 'brackets' })}`;
    return foundChargeFrom(this.#intent(await this.#send(account, 'GET', path)));
  }

  /** The search API over the payment uid in the metadata, with each intent's latest charge and payment method expanded. */
  async findCharge(account: GatewayAccount, reference: ChargeReference): Promise<FoundCharge | undefined> {
    const query = `metadata['payment_uid']:'${reference.paymentUid.replace(/'/g, "\\'")}'`;
    const path = `/v1/payment_intents/search?${qs.stringify({ query, expand: ['data.latest_charge', 'data.payment_method'] }, { arrayFormat: 'brackets' })}`;
    const response = await this.#send(account, 'GET', path);
    const failure = failureOf(response);
    if (response.status >= 400 || failure)
      throw new GatewayRequestError(
        this.name,
        response.status,
        requestErrorCode(response.status),
        failure?.message ?? `gateway_b answered ${response.status}`,
      );
    if (stringAt(response.body, 'object') !== 'search_result')
      throw new GatewayUnavailableError(this.name, 'error', 'gateway_b answered without a search_result');
    const intent = (response.body as { data: GatewayBPaymentIntent[] }).data.find(
      (item) => item.metadata?.payment_uid === reference.paymentUid,
    );
    return intent ? foundChargeFrom(intent) : undefined;
  }

  /** The refunds of the intent, each with the reference it was made under in its metadata. */
  async findRefund(account: GatewayAccount, gatewayId: string, reference: string): Promise<FoundRefund | undefined> {
    const response = await this.#send(
      account,
      'GET',
      `/v1/refunds?${qs.stringify({ payment_intent: gatewayId, limit: 100 })}`,
    );
    const failure = failureOf(response);
    if (response.status >= 400 || failure)
      throw new GatewayRequestError(
        this.name,
        response.status,
        requestErrorCode(response.status),
        failure?.message ?? `gateway_b answered ${response.status}`,
      );
    if (stringAt(response.body, 'object') !== 'list')
      throw new GatewayUnavailableError(this.name, 'error', 'gateway_b answered without a list of refunds');
    const refund = (response.body as { data: GatewayBRefund[] }).data.find(
      (item) => item.metadata?.reference === reference,
    );
    return refund ? { refundId: refund.id, amountCents: refund.amount } : undefined;
  }

  parseWebhook(body: unknown): InboundEvent {
    return inboundEventFrom(body);
  }

  async #chargeCard(account: GatewayAccount, form: IntentForm, idempotencyKey: string): Promise<CardOutcome> {
    const response = await this.#send(account, 'POST', '/v1/payment_intents', form, idempotencyKey);
    const failure = failureOf(response);
    if (failure?.type === 'card_error') return declinedFrom(failure.payment_intent?.id ?? null, failure);
    if (failure?.code === 'parameter_missing' && failure.param === 'confirmation_token') {
      throw new GatewayRequestError(
        this.name,
        response.status,
        'confirmation_token_required',
        'gateway_b needs the confirmation token its browser library made (confirmation_token_id) to charge a card',
      );
    }
    if (
      failure?.code === 'resource_missing' &&
      (failure.param === 'confirmation_token' || failure.param === 'payment_method')
    ) {
      return { status: 'declined', gatewayId: null, code: 'invalid_token', message: failure.message };
    }
    return cardOutcomeFrom(this.#intent(response));
  }

  #send(
    account: GatewayAccount,
    method: 'GET' | 'POST',
    path: string,
    form?: IntentForm,
    idempotencyKey?: string,
  ): Promise<GatewayResponse> {
    const headers: Record<string, string> = { authorization: `Bearer ${account.secretKey}` };
    if (form !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    const body = form === undefined ? undefined : qs.stringify(form, { arrayFormat: 'brackets' });
    return callGateway(this.name, { method, url: gatewayUrl(account.baseUrl, path), headers, body }, this.#timeoutMs);
  }

  #intent(response: GatewayResponse): GatewayBPaymentIntent {
    return this.#expect<GatewayBPaymentIntent>(response, 'payment_intent');
  }

  #refund(response: GatewayResponse): GatewayBRefund {
    return this.#expect<GatewayBRefund>(response, 'refund');
  }

  #expect<T>(response: GatewayResponse, object: string): T {
    const failure = failureOf(response);
    if (response.status >= 400 || failure) {
      const code =
        failure?.code === 'payment_intent_unexpected_state' || failure?.code === 'charge_already_refunded'
          ? 'invalid_state'
          : requestErrorCode(response.status);
      throw new GatewayRequestError(
        this.name,
        response.status,
        code,
        failure?.message ?? `gateway_b answered ${response.status}`,
      );
    }
    if (stringAt(response.body, 'object') !== object || !stringAt(response.body, 'id'))
      throw new GatewayUnavailableError(this.name, 'error', `gateway_b answered without a ${object}`);
    return response.body as T;
  }
}

function failureOf(response: GatewayResponse): Failure | undefined {
  if (response.status < 400) return undefined;
  const error = objectAt(response.body, 'error');
  return error && stringAt(error, 'message') ? (error as Failure) : undefined;
}
