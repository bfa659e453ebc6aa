/**
 * The load balancer in front of the API processes for what the gateways send (webhooks): round robin over
 * the processes marked up, and on a connection that fails (a process killed or restarting) the next one.
 * Webhooks are deduplicated by the service, so sending one again elsewhere is safe.
 */

import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

const HOP_HEADERS = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

export type Balancer = {
  url: string;
  /** Deliveries answered by no process (the sender then retries). */
  unserved(): number;
  close(): Promise<void>;
};

export async function startBalancer(upstreams: () => string[]): Promise<Balancer> {
  let next = 0;
  let unserved = 0;
  const server = createServer(async (request, response) => {
    const { body, headers } = await readRequest(request);
    const targets = upstreams();
    for (let tried = 0; tried < targets.length; tried++) {
      const target = targets[next++ % targets.length]!;
      try {
        const answer = await fetch(`${target}${request.url}`, {
          method: request.method,
          headers,
          ...(request.method === 'GET' || request.method === 'HEAD' ? {} : { body }),
          signal: AbortSignal.timeout(10_000),
        });
        const text = Buffer.from(await answer.arrayBuffer());
        response
          .writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' })
          .end(text);
        return;
      } catch {
        // killed or restarting: try the next process
      }
    }
    unserved++;
    response.writeHead(502).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    unserved: () => unserved,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function readRequest(request: IncomingMessage): Promise<{ body: string; headers: Record<string, string> }> {
  const chunks: Buffer[] = [];
  for await (const chunk of request as AsyncIterable<Buffer>) chunks.push(chunk);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers))
    if (!HOP_HEADERS.has(name) && typeof value === 'string') headers[name] = value;
  // Webhook bodies are JSON or form text: the UTF-8 round trip keeps them byte for byte, so signatures hold.
  return { body: Buffer.concat(chunks).toString('utf8'), headers };
}
