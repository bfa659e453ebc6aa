/** Shared fixtures of the gateway tests: a webhook receiver, the sandboxes, accounts and card helpers. */

import { EventEmitter } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GatewayAccount, GatewayName, PaymentMetadata } from '../../src/gateways/port.ts';
import { startSandboxes, type RunningSandboxes, type SandboxOptions } from '../../src/gateways/sandbox/server.ts';

export const COMPANY_ID = 41;
export const OTHER_COMPANY_ID = 42;
export const BASIC_CREDENTIALS = { username: 'loja-teste-gateway-a', password: 'senha-do-webhook-a-123' };
export const SIGNING_SECRET = 'whsec_test_0123456789abcdef0123456789abcdef';

export const KEYS: Record<GatewayName, { publicKey: string; secretKey: string }> = {
  gateway_a: { publicKey: 'pk_test_aaaa-aaaa_aaaaaaa', secretKey: 'sk_test_aaaa-aaaa_aaaaaaaaaaaaaaa' },
  gateway_b: { publicKey: 'pk_test_bbbbbbbbbbbbbbbb', secretKey: 'sk_test_bbbbbbbbbbbbbbbbbbbbbbbb' },
  gateway_c: { publicKey: 'ek_test_cccc-cccc_ccccccc', secretKey: 'ak_test_cccc-cccc_ccccccccccccccc' },
};

export const CARDS = {
  approved: '4111111111111111',
  declined: '4000000000000002',
  insufficientFunds: '4000000000009995',
  gatewayError: '4000000000000119',
  gatewayTimeout: '4000000000000259',
} as const;

export type ReceivedWebhook = { path: string; headers: IncomingHttpHeaders; rawBody: string; answeredStatus?: number };

/** A local HTTP server standing in for the service's webhook receivers. */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  readonly #events = new EventEmitter();
  readonly #taken = new Set<ReceivedWebhook>();
  #failures = 0;

  private constructor(
    private readonly server: Server,
    readonly baseUrl: string,
  ) {}

  static async start(): Promise<WebhookReceiver> {
    let receiver: WebhookReceiver | undefined;
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () =>
        receiver!.#record(
          { path: request.url ?? '/', headers: request.headers, rawBody: Buffer.concat(chunks).toString('utf8') },
          response,
        ),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver = new WebhookReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return receiver;
  }

  /** The next `count` deliveries are answered 500. */
  failNext(count: number): void {
    this.#failures = count;
  }

  /** The first accepted webhook not yet taken that matches, waiting up to `timeoutMs` for it. */
  next(matches: (webhook: ReceivedWebhook) => boolean, timeoutMs = 5_000): Promise<ReceivedWebhook> {
    return new Promise((resolve, reject) => {
      const look = () => {
        const found = this.received.find(
          (webhook) => webhook.answeredStatus === 200 && !this.#taken.has(webhook) && matches(webhook),
        );
        if (!found) return false;
        this.#taken.add(found);
        clearTimeout(timer);
        this.#events.off('webhook', look);
        resolve(found);
        return true;
      };
      const timer = setTimeout(() => {
        this.#events.off('webhook', look);
        reject(new Error(`no matching webhook within ${timeoutMs} ms (received ${this.received.length})`));
      }, timeoutMs);
      if (!look()) this.#events.on('webhook', look);
    });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  #record(webhook: ReceivedWebhook, response: ServerResponse): void {
    const failing = this.#failures > 0;
    if (failing) this.#failures -= 1;
    this.received.push({ ...webhook, answeredStatus: failing ? 500 : 200 });
    response.writeHead(failing ? 500 : 200).end();
    if (!failing) this.#events.emit('webhook');
  }
}

export type Harness = {
  sandboxes: RunningSandboxes;
  receiver: WebhookReceiver;
  account: (name: GatewayName) => GatewayAccount;
  close: () => Promise<void>;
};

/** Sandboxes on port 0 whose webhooks for COMPANY_ID go to a local receiver (with fast retries). */
export async function startHarness(options: Partial<SandboxOptions> = {}): Promise<Harness> {
  const receiver = await WebhookReceiver.start();
  const sandboxes = await startSandboxes({
    port: 0,
    webhookRetryDelaysMs: [50, 100, 200],
    webhookAttemptTimeoutMs: 2_000,
    webhookTargets: (gateway, companyId) => {
      if (companyId !== COMPANY_ID) return undefined;
      const url = `${receiver.baseUrl}/hooks/${gateway}`;
      if (gateway === 'gateway_a') return { url, basicAuth: BASIC_CREDENTIALS };
      if (gateway === 'gateway_b') return { url, signingSecret: SIGNING_SECRET };
      return { url };
    },
    ...options,
  });
  return {
    sandboxes,
    receiver,
    account: (name) => ({ baseUrl: sandboxes.baseUrlFor(name), ...KEYS[name] }),
    close: async () => {
      await sandboxes.close();
      await receiver.close();
    },
  };
}

let sequence = 0;

/** Metadata of a new payment, unique per call. */
export function metadata(companyId = COMPANY_ID): PaymentMetadata {
  sequence += 1;
  return { companyId, orderUid: `order-${process.pid}-${sequence}`, paymentUid: `payment-${process.pid}-${sequence}` };
}

export const BUYER = {
  name: 'Maria da Silva',
  email: 'maria@example.com',
  document: '52998224725',
  phone: '11987654321',
};

export function idempotencyKey(): string {
  sequence += 1;
  return `idem-${process.pid}-${sequence}`;
}

/** A date `days` from today as YYYY-MM-DD. */
export function dateInDays(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? null : JSON.parse(text) };
}

/** The sandbox action that plays the buyer paying, a slip lapsing or a chargeback. */
export async function sandboxAction(
  harness: Harness,
  gateway: GatewayName,
  gatewayId: string,
  action: 'confirm' | 'expire' | 'dispute',
) {
  return postJson(`${harness.sandboxes.baseUrlFor(gateway)}/sandbox/charges/${gatewayId}/${action}`, {});
}
