/** A merchant's webhook receiver for the notification tests: real HTTP on port 0, its own signature check. */

import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Received = {
  headers: IncomingHttpHeaders;
  body: string;
  eventId: string;
  /** Which of the receiver's secrets verified the signature (indexes into `secrets`). */
  verifiedBy: number[];
  answered: number;
};

export type ReceiverOptions = {
  /** Secrets the merchant holds; each one is tried on every request. */
  secrets: string[];
  /** The receiver's clock for the timestamp tolerance (the test's controllable clock). */
  now: () => Date;
  /** Answer 500 to this many requests of each event id before answering 200. */
  failFirst?: number;
  /** A fixed answer for every request (overrides failFirst). */
  alwaysAnswer?: number;
  extraHeaders?: Record<string, string>;
  /** Written as the body of failure answers (to check truncation in the attempt log). */
  failureBody?: string;
};

/**
 * Verifies `Checkout-Signature` independently of the service: parse `t` and every `v1`, recompute
 * HMAC-SHA256 over `<t>.<raw body>` with node:crypto, compare with timingSafeEqual, 5-minute tolerance.
 */
export function verifiedBy(header: string | undefined, body: string, secrets: string[], now: Date): number[] {
  if (!header) return [];
  const parts = header.split(',').map((part) => part.split('='));
  const timestamp = parts.find(([key]) => key === 't')?.[1];
  const signatures = parts.filter(([key]) => key === 'v1').map(([, value]) => Buffer.from(value ?? '', 'hex'));
  if (!timestamp || Math.abs(now.getTime() / 1000 - Number(timestamp)) > 300) return [];
  return secrets.flatMap((secret, index) => {
    const expected = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest();
    return signatures.some((signature) => signature.length === expected.length && timingSafeEqual(signature, expected))
      ? [index]
      : [];
  });
}

export class Receiver {
  readonly received: Received[] = [];
  private server: Server | undefined;
  private readonly seen = new Map<string, number>();
  constructor(public options: ReceiverOptions) {}

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const eventId = String(request.headers['checkout-event-id'] ?? '');
        const count = (this.seen.get(eventId) ?? 0) + 1;
        this.seen.set(eventId, count);
        const answered = this.options.alwaysAnswer ?? (count <= (this.options.failFirst ?? 0) ? 500 : 200);
        this.received.push({
          headers: request.headers,
          body,
          eventId,
          verifiedBy: verifiedBy(
            request.headers['checkout-signature'] as string | undefined,
            body,
            this.options.secrets,
            this.options.now(),
          ),
          answered,
        });
        response.writeHead(answered, { 'content-type': 'text/plain', ...this.options.extraHeaders });
        response.end(answered >= 300 ? (this.options.failureBody ?? 'try again later') : 'ok');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }

  /** The events accepted (answered 2xx), deduplicated by event id as a merchant would. */
  acceptedByEventId(): Map<string, Received[]> {
    const accepted = new Map<string, Received[]>();
    for (const request of this.received.filter((entry) => entry.answered < 300))
      accepted.set(request.eventId, [...(accepted.get(request.eventId) ?? []), request]);
    return accepted;
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
