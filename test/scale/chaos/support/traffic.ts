/**
 * Every request of a chaos run and its answer (or the lack of one: the process died under it), kept for the
 * reconciliation. Requests go round robin to the API processes that are up, as a load balancer would send them.
 */

import { writeFileSync } from 'node:fs';
import type { Fleet } from './fleet.ts';

export type Kind =
  | 'page_pay'
  | 'cart_create'
  | 'cart_pay'
  | 'charge_create'
  | 'charge_pay'
  | 'refund'
  | 'confirm'
  | 'card_hash_key'
  | 'malformed';

export type Exchange = {
  kind: Kind;
  /** The operation it belongs to (`op-<n>`), also sent as `meta.chaos_op` on pays. */
  op: string;
  method: string;
  path: string;
  target: string;
  status?: number;
  body?: any;
  headers?: Headers;
  /** Set when no answer came back: connection refused or cut by a kill, or a timeout. */
  error?: string;
  ms?: number;
  /** What the exchange was about, for the reconciliation: payment method, payment id, amount… */
  facts: Record<string, unknown>;
};

export const ORIGIN = { origin: 'https://shop.example' };

export type SendOptions = {
  op: string;
  body?: unknown;
  /** Bytes sent as they are (malformed requests), instead of `body` as JSON. */
  raw?: string;
  headers?: Record<string, string>;
  facts?: Record<string, unknown>;
  /** Another origin than an API process (a sandbox action). */
  url?: string;
};

export class Traffic {
  readonly exchanges: Exchange[] = [];
  private next = 0;

  constructor(private readonly fleet: Fleet) {}

  async send(kind: Kind, method: string, path: string, options: SendOptions): Promise<Exchange> {
    const live = this.fleet.liveApiUrls();
    const target = options.url ?? live[this.next++ % live.length]!;
    const exchange: Exchange = { kind, op: options.op, method, path, target, facts: options.facts ?? {} };
    this.exchanges.push(exchange);
    const hasBody = options.raw !== undefined || options.body !== undefined;
    const started = performance.now();
    try {
      const response = await fetch(`${target}${path}`, {
        method,
        headers: { ...(hasBody ? { 'content-type': 'application/json' } : {}), ...ORIGIN, ...options.headers },
        body: options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await response.text();
      exchange.status = response.status;
      exchange.headers = response.headers;
      exchange.body = parse(text);
    } catch (error) {
      exchange.error = (error as Error).cause ? String((error as Error).cause) : (error as Error).message;
    }
    exchange.ms = Math.round(performance.now() - started);
    return exchange;
  }

  of(kind: Kind): Exchange[] {
    return this.exchanges.filter((exchange) => exchange.kind === kind);
  }
}

function parse(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Every exchange (headers left out) and the problems found, as JSON, for looking into a failed run. */
export function writeReport(path: string, traffic: Traffic, problems: string[]): void {
  const exchanges = traffic.exchanges.map(({ headers: _headers, ...exchange }) => exchange);
  writeFileSync(path, JSON.stringify({ problems, exchanges }, null, 1));
}
