import type { GatewayName } from '../port.ts';

export type WebhookTarget = { url: string; basicAuth?: { username: string; password: string }; signingSecret?: string };
/** Where a company's events of one gateway go (undefined: the company has no receiver configured). */
export type WebhookTargets = (gateway: GatewayName, companyId: number) => WebhookTarget | undefined;

export type OutgoingWebhook = {
  eventId: string;
  eventType: string;
  contentType: string;
  body: string;
  /** Headers of one attempt (signatures carry the time they were made, so each attempt signs anew). */
  headers: (target: WebhookTarget, sentAt: Date) => Record<string, string>;
};

export type WebhookDelivery = {
  gateway: GatewayName;
  companyId: number | null;
  eventId: string;
  eventType: string;
  url: string | null;
  attempts: number;
  status: 'pending' | 'delivered' | 'failed' | 'no_target';
  lastResponseStatus: number | null;
};

export type DeliveryOptions = {
  /** Waits between attempts; one attempt more than delays. */
  retryDelaysMs: readonly number[];
  attemptTimeoutMs: number;
  now: () => Date;
};

export const DEFAULT_RETRY_DELAYS_MS = [1_000, 4_000, 16_000] as const;
const KEPT_DELIVERIES = 500;

/** Sends webhooks over HTTP in the background, retrying non-2xx answers with backoff until the sandboxes close. */
export class WebhookDispatcher {
  readonly #pending = new Set<Promise<void>>();
  readonly #log: WebhookDelivery[] = [];
  readonly #firstAttempts = new WeakMap<WebhookDelivery, Promise<void>>();

  constructor(
    private readonly targets: WebhookTargets,
    private readonly options: DeliveryOptions,
    private readonly signal: AbortSignal,
  ) {}

  send(gateway: GatewayName, companyId: number | null, webhook: OutgoingWebhook): WebhookDelivery {
    const target = companyId === null ? undefined : this.#targetFor(gateway, companyId);
    const delivery: WebhookDelivery = {
      gateway,
      companyId,
      eventId: webhook.eventId,
      eventType: webhook.eventType,
      url: target?.url ?? null,
      attempts: 0,
      status: target ? 'pending' : 'no_target',
      lastResponseStatus: null,
    };
    this.#log.push(delivery);
    if (this.#log.length > KEPT_DELIVERIES) this.#log.shift();
    if (target) {
      let attempted!: () => void;
      this.#firstAttempts.set(delivery, new Promise((resolve) => (attempted = resolve)));
      const running = this.#deliver(delivery, target, webhook, attempted).finally(() => {
        attempted();
        this.#pending.delete(running);
      });
      this.#pending.add(running);
    }
    return delivery;
  }

  /** Resolves once the delivery's first attempt has been answered (or failed); at once when it has no target. */
  attempted(delivery: WebhookDelivery): Promise<void> {
    return this.#firstAttempts.get(delivery) ?? Promise.resolve();
  }

  #targetFor(gateway: GatewayName, companyId: number): WebhookTarget | undefined {
    try {
      return this.targets(gateway, companyId);
    } catch {
      // A failing lookup must not fail the merchant's call that caused the event.
      return undefined;
    }
  }

  deliveries(): readonly WebhookDelivery[] {
    return this.#log;
  }

  /** Resolves when every delivery under way has succeeded or given up. */
  async idle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }

  async #deliver(
    delivery: WebhookDelivery,
    target: WebhookTarget,
    webhook: OutgoingWebhook,
    attempted: () => void,
  ): Promise<void> {
    const delays = this.options.retryDelaysMs;
    for (let attempt = 0; attempt <= delays.length && !this.signal.aborted; attempt += 1) {
      if (attempt > 0 && !(await pause(delays[attempt - 1]!, this.signal))) break;
      delivery.attempts += 1;
      delivery.lastResponseStatus = await this.#attempt(target, webhook);
      attempted();
      if (
        delivery.lastResponseStatus !== null &&
        delivery.lastResponseStatus < 300 &&
        delivery.lastResponseStatus >= 200
      ) {
        delivery.status = 'delivered';
        return;
      }
    }
    delivery.status = 'failed';
  }

  /** The receiver's status, or null when it could not be reached in time. */
  async #attempt(target: WebhookTarget, webhook: OutgoingWebhook): Promise<number | null> {
    try {
      const response = await fetch(target.url, {
        method: 'POST',
        headers: {
          'content-type': webhook.contentType,
          'user-agent': 'checkout-gateway-sandbox',
          ...webhook.headers(target, this.options.now()),
        },
        body: webhook.body,
        signal: AbortSignal.any([AbortSignal.timeout(this.options.attemptTimeoutMs), this.signal]),
      });
      await response.arrayBuffer();
      return response.status;
    } catch {
      return null;
    }
  }
}

/** Waits `ms`; false when the signal aborted first. */
export function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (completed: boolean) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(completed);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
