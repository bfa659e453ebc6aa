import { GatewayAClient } from './gateway-a/client.ts';
import { GatewayBClient } from './gateway-b/client.ts';
import { GatewayCClient } from './gateway-c/client.ts';
import type { GatewayClientOptions } from './http.ts';
import type { GatewayName, PaymentGateway } from './port.ts';

export const GATEWAY_NAMES: readonly GatewayName[] = ['gateway_a', 'gateway_b', 'gateway_c'];

export function isGatewayName(value: unknown): value is GatewayName {
  return typeof value === 'string' && (GATEWAY_NAMES as readonly string[]).includes(value);
}

/** A new client; `timeoutMs` bounds every call (10 s by default). */
export function createGateway(name: 'gateway_c', options?: GatewayClientOptions): GatewayCClient;
export function createGateway(name: GatewayName, options?: GatewayClientOptions): PaymentGateway;
export function createGateway(name: GatewayName, options: GatewayClientOptions = {}): PaymentGateway {
  switch (name) {
    case 'gateway_a':
      return new GatewayAClient(options);
    case 'gateway_b':
      return new GatewayBClient(options);
    case 'gateway_c':
      return new GatewayCClient(options);
  }
}

const shared = new Map<GatewayName, PaymentGateway>();

/** The process-wide client of a gateway (clients hold no per-account state, so one serves every company). */
export function gatewayFor(name: GatewayName): PaymentGateway {
  let client = shared.get(name);
  if (!client) {
    client = createGateway(name);
    shared.set(name, client);
  }
  return client;
}

/** gateway_c's client with its extra card-hash-key call. */
export function gatewayCClient(): GatewayCClient {
  return gatewayFor('gateway_c') as GatewayCClient;
}
