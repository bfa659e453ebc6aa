import type { GatewayName } from '../port.ts';
import type { ChargeEvent } from './lifecycle.ts';
import type { SandboxRouter } from './router.ts';
import type { SandboxCharge, SandboxStore } from './store.ts';
import type { WebhookDelivery, WebhookDispatcher } from './webhooks.ts';

/** What one gateway's sandbox needs from the process that serves it. */
export type SandboxContext = {
  gateway: GatewayName;
  store: SandboxStore;
  webhooks: WebhookDispatcher;
  now: () => Date;
  /** Aborted when the sandboxes close: held requests and webhook retries stop. */
  signal: AbortSignal;
  /** How long the timeout test card holds a charge request. */
  holdMs: number;
  /** `http://host:port/<gateway>`, known once the server listens. */
  baseUrl: () => string;
  /** Host written into dynamic BR Codes (they carry no scheme and no port). */
  pixLocationHost: string;
};

/** One gateway's sandbox: its routes, and how it tells the merchant about a charge event. */
export type GatewaySandbox = {
  context: SandboxContext;
  router: SandboxRouter;
  notify: (charge: SandboxCharge, event: ChargeEvent) => WebhookDelivery;
  /** The charge as this gateway's API shows it (for the sandbox actions' answers). */
  view: (charge: SandboxCharge) => unknown;
};
