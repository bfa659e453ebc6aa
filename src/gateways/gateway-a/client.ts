import { GatewayRequestError, requestErrorCode } from '../errors.ts';
import {
  basicAuthorization,
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
import { arrayAt, isObject, objectAt, stringAt } from '../wire.ts';
import {
  boletoIssuedFrom,
  boletoOrderRequest,
  cardOrderRequest,
  cardOutcomeFrom,
  foundChargeFrom,
  inboundEventFrom,
  pixIssuedFrom,
  pixOrderRequest,
  savedMethodOrderRequest,
} from './transformers.ts';
import type { GatewayACharge, GatewayAOrder, GatewayAOrderRequest, GatewayARefundResult } from './types.ts';

// The request fields whose refusal means "this token or saved card cannot be used", not a caller bug.
const CARD_REFERENCE_FIELDS = ['payments[0].credit_card.card_token', 'payments[0].credit_card.card_id'];

/** gateway_a over HTTP: orders carry one payment each; refunds and status work on the order's charge. */
export class GatewayAClient implements PaymentGateway {
  readonly name = 'gateway_a' as const;
  /** A boleto is registered with its payer; Pix and card charges take the e-mail alone. */
  readonly payerIdentityRequired = ['bank_slip'] as const;
  readonly #timeoutMs: number;

  constructor(options: GatewayClientOptions = {}) {
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_GATEWAY_TIMEOUT_MS;
  }

  async chargeCard(account: GatewayAccount, charge: CardCharge): Promise<CardOutcome> {
    if (!charge.cardToken)
      throw new GatewayRequestError(
        this.name,
        422,
        'invalid_request',
        'gateway_a needs the card token from its browser tokenizer',
      );
    return this.#chargeCard(account, cardOrderRequest(charge), charge.idempotencyKey);
  }

  async chargeSavedMethod(account: GatewayAccount, charge: SavedMethodCharge): Promise<CardOutcome> {
    return this.#chargeCard(account, savedMethodOrderRequest(charge), charge.idempotencyKey);
  }

  async createPix(account: GatewayAccount, charge: PixCharge): Promise<PixIssued> {
    const response = await this.#send(
      account,
      'POST',
      '/orders',
      pixOrderRequest(charge, new Date()),
      charge.idempotencyKey,
    );
    return pixIssuedFrom(this.#order(response));
  }

  async createBoleto(account: GatewayAccount, charge: BoletoCharge): Promise<BoletoIssued> {
    const response = await this.#send(account, 'POST', '/orders', boletoOrderRequest(charge), charge.idempotencyKey);
    return boletoIssuedFrom(this.#order(response));
  }

  async voidCharge(account: GatewayAccount, gatewayId: string, idempotencyKey: string): Promise<void> {
    const response = await this.#send(
      account,
      'POST',
      `/charges/${encodeURIComponent(gatewayId)}/cancel`,
      {},
      idempotencyKey,
    );
    this.#charge(response);
  }

  async refund(
    account: GatewayAccount,
    gatewayId: string,
    amountCents: number,
    idempotencyKey: string,
  ): Promise<{ refundId: string }> {
    const response = await this.#send(
      account,
      'POST',
      `/charges/${encodeURIComponent(gatewayId)}/refund`,
      { amount: amountCents, code: idempotencyKey },
      idempotencyKey,
    );
    const refund = this.#expect<GatewayARefundResult>(
      response,
      (body) => stringAt(body, 'id') !== undefined && isObject(objectAt(body, 'charge')),
    );
    return { refundId: refund.id };
  }

  async fetchStatus(account: GatewayAccount, gatewayId: string): Promise<RemoteStatus> {
    return (await this.fetchCharge(account, gatewayId)).status;
  }

  /** `GET /charges/{id}`: the last transaction's card has an `id` when it was saved (`save_card`). */
  async fetchCharge(account: GatewayAccount, gatewayId: string): Promise<FoundCharge> {
    return foundChargeFrom(this.#charge(await this.#send(account, 'GET', `/charges/${encodeURIComponent(gatewayId)}`)));
  }

  /** `GET /orders?code=<payment uid>`: our payment uid is the order's code. */
  async findCharge(account: GatewayAccount, reference: ChargeReference): Promise<FoundCharge | undefined> {
    const response = await this.#send(account, 'GET', `/orders?code=${encodeURIComponent(reference.paymentUid)}`);
    const list = this.#expect<{ data: GatewayAOrder[] }>(response, (body) =>
      arrayAt(body, 'data').every((order) => arrayAt(order, 'charges').every(isChargeShape)),
    );
    const charge = list.data.find((order) => order.code === reference.paymentUid)?.charges[0];
    return charge ? foundChargeFrom(charge) : undefined;
  }

  /** The charge lists its refunds, each with the `code` it was made under. */
  async findRefund(account: GatewayAccount, gatewayId: string, reference: string): Promise<FoundRefund | undefined> {
    const refund = this.#charge(
      await this.#send(account, 'GET', `/charges/${encodeURIComponent(gatewayId)}`),
    ).refunds.find((item) => item.code === reference);
    return refund ? { refundId: refund.id, amountCents: refund.amount } : undefined;
  }

  parseWebhook(body: unknown): InboundEvent {
    return inboundEventFrom(body);
  }

  async #chargeCard(
    account: GatewayAccount,
    request: GatewayAOrderRequest,
    idempotencyKey: string,
  ): Promise<CardOutcome> {
    const response = await this.#send(account, 'POST', '/orders', request, idempotencyKey);
    const refusedField =
      response.status === 422
        ? CARD_REFERENCE_FIELDS.find((field) => field in (objectAt(response.body, 'errors') ?? {}))
        : undefined;
    if (refusedField) {
      const [message] = arrayAt(objectAt(response.body, 'errors'), refusedField);
      return {
        status: 'declined',
        gatewayId: null,
        code: 'invalid_token',
        message: typeof message === 'string' ? message : 'The card reference was refused',
      };
    }
    return cardOutcomeFrom(this.#order(response));
  }

  #send(
    account: GatewayAccount,
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    idempotencyKey?: string,
  ): Promise<GatewayResponse> {
    const headers: Record<string, string> = { authorization: basicAuthorization(account.secretKey, '') };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    const request = {
      method,
      url: gatewayUrl(account.baseUrl, path),
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    };
    return callGateway(this.name, request, this.#timeoutMs);
  }

  #order(response: GatewayResponse): GatewayAOrder {
    return this.#expect<GatewayAOrder>(
      response,
      (body) => arrayAt(body, 'charges').every(isChargeShape) && arrayAt(body, 'charges').length > 0,
    );
  }

  #charge(response: GatewayResponse): GatewayACharge {
    return this.#expect<GatewayACharge>(response, isChargeShape);
  }

  /** The body of a 2xx answer of the expected shape; a 4xx becomes a GatewayRequestError. */
  #expect<T>(response: GatewayResponse, hasShape: (body: unknown) => boolean): T {
    if (response.status >= 400) {
      throw new GatewayRequestError(
        this.name,
        response.status,
        requestErrorCode(response.status),
        stringAt(response.body, 'message') ?? `gateway_a answered ${response.status}`,
      );
    }
    if (!hasShape(response.body))
      throw new GatewayUnavailableError(this.name, 'error', 'gateway_a answered with an unexpected body');
    return response.body as T;
  }
}

function isChargeShape(body: unknown): boolean {
  return (
    stringAt(body, 'id') !== undefined &&
    stringAt(body, 'status') !== undefined &&
    isObject(objectAt(body, 'last_transaction'))
  );
}
