import http from 'node:http';
import https from 'node:https';
import { GatewayUnavailableError, type GatewayName } from './port.ts';

/** How long a client waits for a gateway before giving up (the charge may still have happened). */
export const DEFAULT_GATEWAY_TIMEOUT_MS = 10_000;

export type GatewayClientOptions = { timeoutMs?: number };

export type GatewayRequest = { method: 'GET' | 'POST'; url: string; headers: Record<string, string>; body?: string };
export type GatewayResponse = { status: number; body: unknown };

// Kept-alive connections per gateway host: a payment's gateway call reuses a socket instead of opening
// one (and, over TLS, a handshake) per call. node:http costs a fraction of `fetch`'s CPU per call. Idle
// sockets are closed after 4 s, before a server's usual 5 s keep-alive timeout closes them under a request.
const AGENT_OPTIONS = { keepAlive: true, maxSockets: 64, timeout: 4000 };
const httpAgent = new http.Agent(AGENT_OPTIONS);
const httpsAgent = new https.Agent(AGENT_OPTIONS);

class GatewayTimeout extends Error {}

function exchange(request: GatewayRequest, timeoutMs: number): Promise<{ status: number; text: string }> {
  const url = new URL(request.url);
  const secure = url.protocol === 'https:';
  const body = request.body === undefined ? undefined : Buffer.from(request.body, 'utf8');
  const headers: Record<string, string | number> = {
    accept: 'application/json',
    ...request.headers,
    ...(body ? { 'content-length': body.length } : {}),
  };
  return new Promise((resolve, reject) => {
    const outgoing = (secure ? https : http).request(url, {
      method: request.method,
      headers,
      agent: secure ? httpsAgent : httpAgent,
    });
    // One deadline for the whole exchange (connect, send, answer), as AbortSignal.timeout gave `fetch`.
    const timer = setTimeout(() => outgoing.destroy(new GatewayTimeout()), timeoutMs);
    const fail = (error: Error) => {
      clearTimeout(timer);
      reject(error);
    };
    outgoing.on('error', fail);
    outgoing.on('response', (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('error', fail);
      incoming.on('aborted', () => fail(new Error('answer cut short')));
      incoming.on('end', () => {
        clearTimeout(timer);
        resolve({ status: incoming.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
      });
    });
    outgoing.end(body);
  });
}

/**
 * One HTTP exchange with a gateway. A timeout or a failed connection is `timeout` (the gateway may have
 * acted), a 5xx or an unreadable answer is `error`; any other status is returned for the client to read.
 */
export async function callGateway(
  gateway: GatewayName,
  request: GatewayRequest,
  timeoutMs: number,
): Promise<GatewayResponse> {
  let status: number;
  let text: string;
  try {
    ({ status, text } = await exchange(request, timeoutMs));
  } catch (error) {
    const timedOut = error instanceof GatewayTimeout;
    throw new GatewayUnavailableError(
      gateway,
      'timeout',
      timedOut ? `${gateway} did not answer within ${timeoutMs} ms` : `${gateway} could not be reached`,
    );
  }
  if (status >= 500) throw new GatewayUnavailableError(gateway, 'error', `${gateway} answered ${status}`);
  try {
    return { status, body: text === '' ? null : JSON.parse(text) };
  } catch {
    throw new GatewayUnavailableError(gateway, 'error', `${gateway} answered ${status} with a body that is not JSON`);
  }
}

/** `base` + `path` with exactly one slash between them. */
export function gatewayUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

export function basicAuthorization(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
}
