import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import qs from 'qs';
import { createGatewayASandbox } from '../gateway-a/sandbox.ts';
import { createGatewayBSandbox } from '../gateway-b/sandbox.ts';
import { createGatewayCSandbox } from '../gateway-c/sandbox.ts';
import type { GatewayName } from '../port.ts';
import { addSandboxActions } from './actions.ts';
import type { GatewaySandbox, SandboxContext } from './context.ts';
import { addPaymentSlipRoutes } from './payment-slips.ts';
import { SandboxError, type SandboxReply, type SandboxRequest } from './router.ts';
import { SandboxStore } from './store.ts';
import { DEFAULT_RETRY_DELAYS_MS, WebhookDispatcher, type WebhookDelivery, type WebhookTargets } from './webhooks.ts';

export type { WebhookTarget, WebhookTargets, WebhookDelivery } from './webhooks.ts';

export type SandboxOptions = {
  port?: number;
  host?: string;
  webhookTargets: WebhookTargets;
  /** The sandboxes' clock (token and card-hash-key lifetimes, timestamps, signatures). */
  now?: () => Date;
  /** How long the timeout test card holds the request before answering 504 (default 15 s). */
  holdMs?: number;
  webhookRetryDelaysMs?: readonly number[];
  webhookAttemptTimeoutMs?: number;
  /** Host written into dynamic BR Codes; defaults to the listening host (127.0.0.1 for a wildcard or name without dots). */
  pixLocationHost?: string;
};

export type RunningSandboxes = {
  /** `http://host:port`, the root that serves `/gateway_a`, `/gateway_b` and `/gateway_c`. */
  url: string;
  /** The `GatewayAccount.baseUrl` that reaches one gateway's sandbox. */
  baseUrlFor: (name: GatewayName) => string;
  deliveries: () => readonly WebhookDelivery[];
  /** Resolves when no webhook delivery is under way. */
  webhooksIdle: () => Promise<void>;
  close: () => Promise<void>;
};

const GATEWAYS = {
  gateway_a: createGatewayASandbox,
  gateway_b: createGatewayBSandbox,
  gateway_c: createGatewayCSandbox,
} as const;
const MAX_BODY_BYTES = 1_048_576;

/** Every gateway's sandbox base URL, as the service's `gatewayUrls` setting takes them. */
export function sandboxGatewayUrls(sandboxes: Pick<RunningSandboxes, 'baseUrlFor'>): Record<GatewayName, string> {
  return Object.fromEntries(
    (Object.keys(GATEWAYS) as GatewayName[]).map((name) => [name, sandboxes.baseUrlFor(name)]),
  ) as Record<GatewayName, string>;
}

/** Serves the three gateway sandboxes from one HTTP server, each under its own path prefix. */
export async function startSandboxes(options: SandboxOptions): Promise<RunningSandboxes> {
  const host = options.host ?? '127.0.0.1';
  const now = options.now ?? (() => new Date());
  const closing = new AbortController();
  const webhooks = new WebhookDispatcher(
    options.webhookTargets,
    {
      retryDelaysMs: options.webhookRetryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS,
      attemptTimeoutMs: options.webhookAttemptTimeoutMs ?? 5_000,
      now,
    },
    closing.signal,
  );
  let url = '';
  const sandboxes = new Map<string, GatewaySandbox>();
  for (const [gateway, create] of Object.entries(GATEWAYS) as [
    GatewayName,
    (context: SandboxContext) => GatewaySandbox,
  ][]) {
    const context: SandboxContext = {
      gateway,
      store: new SandboxStore(),
      webhooks,
      now,
      signal: closing.signal,
      holdMs: options.holdMs ?? 15_000,
      baseUrl: () => `${url}/${gateway}`,
      pixLocationHost: options.pixLocationHost ?? pixHostFor(host),
    };
    const sandbox = create(context);
    addPaymentSlipRoutes(sandbox.router, context);
    addSandboxActions(sandbox);
    sandboxes.set(gateway, sandbox);
  }

  const server = createServer((request, response) => void dispatch(sandboxes, closing.signal, request, response));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  return {
    url,
    baseUrlFor: (name) => `${url}/${name}`,
    deliveries: () => webhooks.deliveries(),
    webhooksIdle: () => webhooks.idle(),
    close: async () => {
      closing.abort();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await Promise.all([closed, webhooks.idle()]);
    },
  };
}

function pixHostFor(host: string): string {
  return /^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/.test(host) && host !== '0.0.0.0' ? host : '127.0.0.1';
}

const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, OPTIONS',
  'access-control-allow-headers': 'Authorization, Content-Type',
  'access-control-max-age': '600',
};

async function dispatch(
  sandboxes: Map<string, GatewaySandbox>,
  closing: AbortSignal,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://sandbox');
  const [, prefix = '', ...rest] = url.pathname.split('/');
  const sandbox = sandboxes.get(prefix);
  if (!sandbox)
    return write(response, {
      status: 404,
      body: { error: 'Unknown sandbox: the paths start with /gateway_a, /gateway_b or /gateway_c' },
    });
  const { router } = sandbox;
  const path = `/${rest.join('/')}`;
  const method = request.method ?? 'GET';
  if (method === 'OPTIONS') {
    return write(
      response,
      router.allowsCors(path)
        ? { status: 204, headers: CORS_HEADERS }
        : { status: 404, body: router.renderError(notFound()) },
    );
  }
  const match = router.match(method, path);
  if (!match) return write(response, { status: 404, body: router.renderError(notFound()) });

  const hangUp = new AbortController();
  response.on('close', () => hangUp.abort());
  let reply: SandboxReply;
  try {
    const rawBody = await readBody(request);
    const sandboxRequest: SandboxRequest = {
      method,
      path,
      params: match.params,
      query: qs.parse(url.search.slice(1), { depth: 5, arrayLimit: 100, parameterLimit: 500 }),
      headers: request.headers,
      rawBody,
      body: parseBody(request.headers['content-type'], rawBody),
      signal: AbortSignal.any([hangUp.signal, closing]),
    };
    reply = await match.handler(sandboxRequest);
  } catch (error) {
    const known = error instanceof SandboxError ? error : new SandboxError(500, 'internal_error', 'The sandbox failed');
    reply = { status: known.status, body: router.renderError(known) };
  }
  write(response, match.cors ? { ...reply, headers: { ...CORS_HEADERS, ...reply.headers } } : reply);
}

function notFound(): SandboxError {
  return new SandboxError(404, 'not_found', 'Unknown endpoint');
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new SandboxError(413, 'payload_too_large', 'The body is too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseBody(contentType: string | undefined, rawBody: string): unknown {
  if (rawBody === '') return {};
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded')
    return qs.parse(rawBody, { depth: 5, arrayLimit: 100, parameterLimit: 500 });
  if (type === 'application/json' || type === '') {
    try {
      return JSON.parse(rawBody);
    } catch {
      throw new SandboxError(400, 'malformed_body', 'The body is not valid JSON');
    }
  }
  throw new SandboxError(415, 'unsupported_media_type', 'Send JSON or form-encoded bodies');
}

function write(response: ServerResponse, reply: SandboxReply): void {
  if (response.destroyed || response.headersSent) return;
  const headers: Record<string, string> = { ...reply.headers };
  let payload = '';
  if (reply.body !== undefined) {
    payload = JSON.stringify(reply.body);
    headers['content-type'] = 'application/json; charset=utf-8';
  }
  response.writeHead(reply.status, headers);
  response.end(payload);
}
