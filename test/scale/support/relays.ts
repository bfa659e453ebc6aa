/** Small HTTP relays the scale and crash tests put between real processes. */

import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Relay = { url: string; close(): Promise<void> };
export type FannedDelivery = { path: string; statuses: Array<number | null> };

const HOP_HEADERS = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

async function readRequest(request: IncomingMessage): Promise<{ body: string; headers: Record<string, string> }> {
  const chunks: Buffer[] = [];
  for await (const chunk of request as AsyncIterable<Buffer>) chunks.push(chunk);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (!HOP_HEADERS.has(name) && typeof value === 'string') headers[name] = value;
  }
  // Bodies here are JSON or form text, so the UTF-8 round trip keeps them byte for byte (signatures hold).
  return { body: Buffer.concat(chunks).toString('utf8'), headers };
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function closer(server: Server): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
}

/**
 * A load balancer that duplicates: every request (a gateway's webhook) is sent, byte for byte and at the
 * same moment, to each of `targets`, so every event reaches every API process. It answers 200 when any
 * target accepted, else the first target's status (the sender then retries).
 */
export async function startFanOut(targets: string[]): Promise<Relay & { deliveries: FannedDelivery[] }> {
  const deliveries: FannedDelivery[] = [];
  const server = createServer(async (request, response) => {
    const { body, headers } = await readRequest(request);
    const statuses = await Promise.all(
      targets.map(async (target) => {
        try {
          const answer = await fetch(`${target}${request.url}`, {
            method: request.method,
            headers,
            body,
            signal: AbortSignal.timeout(10_000),
          });
          await answer.arrayBuffer();
          return answer.status;
        } catch {
          return null;
        }
      }),
    );
    deliveries.push({ path: request.url ?? '', statuses });
    const accepted = statuses.some((status) => status !== null && status >= 200 && status < 300);
    response.writeHead(accepted ? 200 : (statuses[0] ?? 502)).end();
  });
  const url = await listen(server);
  return { url, deliveries, close: closer(server) };
}

/**
 * A slow link to a gateway: each request waits `delayMs`, then goes on to `target` even if its sender has
 * died meanwhile (the request was already on the wire), and the answer comes back to whoever is still there.
 */
export async function startSlowLink(target: string, delayMs: number): Promise<Relay & { forwarded(): number }> {
  let forwarded = 0;
  const server = createServer(async (request, response) => {
    const { body, headers } = await readRequest(request);
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    try {
      const answer = await fetch(`${target}${request.url}`, {
        method: request.method,
        headers,
        ...(request.method === 'GET' ? {} : { body }),
        signal: AbortSignal.timeout(10_000),
      });
      const text = Buffer.from(await answer.arrayBuffer());
      forwarded++;
      if (!response.destroyed)
        response
          .writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' })
          .end(text);
    } catch {
      if (!response.destroyed) response.writeHead(502).end();
    }
  });
  const url = await listen(server);
  return { url, forwarded: () => forwarded, close: closer(server) };
}
