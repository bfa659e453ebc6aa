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
import { arrayAt, integerAt, stringAt } from '../wire.ts';
import {
  boletoIssuedFrom,
  boletoTransactionRequest,
  cardOutcomeFrom,
  cardTransactionRequest,
  foundChargeFrom,
  inboundEventFrom,
  pixIssuedFrom,
  pixTransactionRequest,
  savedMethodTransactionRequest,
} from './transformers.ts';
import type {
  GatewayCCardHashKey,
  GatewayCRefundRequest,
  GatewayCTransaction,
  GatewayCTransactionRequest,
} from './types.ts';

export type CardHashKey = { id: number; publicKey: string; dateCreated: Date };

/** gateway_c over HTTP: transactions paid with card hashes; the api key travels in the body. */
export class GatewayCClient implements PaymentGateway {
  readonly name = 'gateway_c' as const;
  /** A boleto is registered with its payer; Pix and card charges take the e-mail alone. */
  readonly payerIdentityRequired = ['bank_slip'] as const;
  readonly #timeoutMs: number;

  constructor(options: GatewayClientOptions = {}) {
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_GATEWAY_TIMEOUT_MS;
  }

  /** A single-use RSA key for the browser to encrypt the card with (asked with the publishable encryption key). */
  async createCardHashKey(account: GatewayAccount): Promise<CardHashKey> {
    if (!account.publicKey)
      throw new GatewayRequestError(
        this.name,
        400,
        'invalid_request',
        'gateway_c needs the encryption key (the publishable key) to issue card hash keys',
      );
    const response = await this.#send('POST', gatewayUrl(account.baseUrl, '/card_hash_keys'), {
      encryption_key: account.publicKey,
    });
    const key = this.#expect<GatewayCCardHashKey>(
      response,
      (body) => integerAt(body, 'id') !== undefined && stringAt(body, 'public_key') !== undefined,
    );
    return { id: key.id, publicKey: key.public_key, dateCreated: new Date(key.date_created) };
  }

  async chargeCard(account: GatewayAccount, charge: CardCharge): Promise<CardOutcome> {
    if (!charge.cardToken)
      throw new GatewayRequestError(
        this.name,
        400,
        'invalid_request',
        'gateway_c needs the card hash made in the browser',
      );
    return this.#chargeCard(account, cardTransactionRequest(account.secretKey, charge), charge.saveForLater);
  }

  chargeSavedMethod(account: GatewayAccount, charge: SavedMethodCharge): Promise<CardOutcome> {
    return this.#chargeCard(account, savedMethodTransactionRequest(account.secretKey, charge), false);
  }

  async createPix(account: GatewayAccount, charge: PixCharge): Promise<PixIssued> {
    return pixIssuedFrom(
      this.#transaction(
        await this.#send(
          'POST',
          gatewayUrl(account.baseUrl, '/transactions'),
          pixTransactionRequest(account.secretKey, charge),
        ),
      ),
    );
  }

  async createBoleto(account: GatewayAccount, charge: BoletoCharge): Promise<BoletoIssued> {
    return boletoIssuedFrom(
      this.#transaction(
        await this.#send(
          'POST',
          gatewayUrl(account.baseUrl, '/transactions'),
          boletoTransactionRequest(account.secretKey, charge),
        ),
      ),
    );
  }

  /** A refund without an amount: the whole of a paid transaction, or the cancellation of an unpaid one. */
  async voidCharge(account: GatewayAccount, gatewayId: string, idempotencyKey: string): Promise<void> {
    const body: GatewayCRefundRequest = { api_key: account.secretKey, reference_key: idempotencyKey };
    this.#transaction(await this.#send('POST', this.#transactionUrl(account, gatewayId, '/refund'), body));
  }

  async refund(
    account: GatewayAccount,
    gatewayId: string,
    amountCents: number,
    idempotencyKey: string,
  ): Promise<{ refundId: string }> {
    const body: GatewayCRefundRequest = {
      api_key: account.secretKey,
      reference_key: idempotencyKey,
      amount: amountCents,
    };
    const transaction = this.#transaction(
      await this.#send('POST', this.#transactionUrl(account, gatewayId, '/refund'), body),
    );
    const refund = transaction.refunds.at(-1);
    if (!refund) throw new GatewayUnavailableError(this.name, 'error', 'gateway_c answered a refund without it');
    return { refundId: refund.id };
  }

  async fetchStatus(account: GatewayAccount, gatewayId: string): Promise<RemoteStatus> {
    return (await this.fetchCharge(account, gatewayId)).status;
  }

  /** `GET /transactions/{id}`: the transaction with its card (gateway_c keeps every card it charges, by `card.id`). */
  async fetchCharge(account: GatewayAccount, gatewayId: string): Promise<FoundCharge> {
    const url = `${this.#transactionUrl(account, gatewayId, '')}?api_key=${encodeURIComponent(account.secretKey)}`;
    return foundChargeFrom(this.#transaction(await this.#send('GET', url)));
  }

  /** `GET /transactions?reference_key=…`: the idempotency key travels as the transaction's reference_key. */
  async findCharge(account: GatewayAccount, reference: ChargeReference): Promise<FoundCharge | undefined> {
    const url = `${gatewayUrl(account.baseUrl, '/transactions')}?${new URLSearchParams({ api_key: account.secretKey, reference_key: reference.idempotencyKey })}`;
    const response = await this.#send('GET', url);
    const list = this.#expect<GatewayCTransaction[]>(
      response,
      (body) => Array.isArray(body) && body.every((item) => stringAt(item, 'object') === 'transaction'),
    );
    const transaction = list.find((item) => item.reference_key === reference.idempotencyKey);
    return transaction ? foundChargeFrom(transaction) : undefined;
  }

  /** The transaction lists its refunds, each with the `reference_key` it was made under. */
  async findRefund(account: GatewayAccount, gatewayId: string, reference: string): Promise<FoundRefund | undefined> {
    const url = `${this.#transactionUrl(account, gatewayId, '')}?api_key=${encodeURIComponent(account.secretKey)}`;
    const refund = this.#transaction(await this.#send('GET', url)).refunds.find(
      (item) => item.reference_key === reference,
    );
    return refund ? { refundId: refund.id, amountCents: refund.amount } : undefined;
  }

  parseWebhook(body: unknown): InboundEvent {
    return inboundEventFrom(body);
  }

  async #chargeCard(
    account: GatewayAccount,
    request: GatewayCTransactionRequest,
    keepCard: boolean,
  ): Promise<CardOutcome> {
    const response = await this.#send('POST', gatewayUrl(account.baseUrl, '/transactions'), request);
    const refused =
      response.status === 400
        ? arrayAt(response.body, 'errors').find((error) =>
            ['card_hash', 'card_id'].includes(stringAt(error, 'parameter_name') ?? ''),
          )
        : undefined;
    if (refused)
      return {
        status: 'declined',
        gatewayId: null,
        code: 'invalid_token',
        message: stringAt(refused, 'message') ?? 'The card hash was refused',
      };
    return cardOutcomeFrom(this.#transaction(response), keepCard);
  }

  #transactionUrl(account: GatewayAccount, gatewayId: string, suffix: string): string {
    return gatewayUrl(account.baseUrl, `/transactions/${encodeURIComponent(gatewayId)}${suffix}`);
  }

  #send(method: 'GET' | 'POST', url: string, body?: unknown): Promise<GatewayResponse> {
    const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
    return callGateway(
      this.name,
      { method, url, headers, body: body === undefined ? undefined : JSON.stringify(body) },
      this.#timeoutMs,
    );
  }

  #transaction(response: GatewayResponse): GatewayCTransaction {
    return this.#expect<GatewayCTransaction>(
      response,
      (body) =>
        stringAt(body, 'object') === 'transaction' &&
        integerAt(body, 'id') !== undefined &&
        Array.isArray((body as GatewayCTransaction).refunds),
    );
  }

  #expect<T>(response: GatewayResponse, hasShape: (body: unknown) => boolean): T {
    if (response.status >= 400) {
      const message = arrayAt(response.body, 'errors')
        .map((error) => stringAt(error, 'message'))
        .filter(Boolean)
        .join('; ');
      const code = arrayAt(response.body, 'errors').some((error) => stringAt(error, 'type') === 'invalid_state')
        ? 'invalid_state'
        : requestErrorCode(response.status);
      throw new GatewayRequestError(
        this.name,
        response.status,
        code,
        message || `gateway_c answered ${response.status}`,
      );
    }
    if (!hasShape(response.body))
      throw new GatewayUnavailableError(this.name, 'error', 'gateway_c answered with an unexpected body');
    return response.body as T;
  }
}
