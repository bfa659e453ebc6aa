import { GatewayUnavailableError, type GatewayName } from './port.ts';

/** How long a client waits for a gateway before giving up (the charge may still have happened). */
export const DEFAULT_GATEWAY_TIMEOUT_MS = 10_000;

export type GatewayClientOptions = { timeoutMs?: number };

export type GatewayRequest = { method: 'GET' | 'POST'; url: string; headers: Record<string, string>; body?: string };
export type GatewayResponse = { status: number; body: unknown };

/**
 * One HTTP exchange with a gateway. A timeout or a failed connection is `timeout` (the gateway may have
 * acted), a 5xx or an unreadable answer is `error`; any other status is returned for the client to read.
 */
export async function callGateway(gateway: GatewayName, request: GatewayRequest, timeoutMs: number): Promise<GatewayResponse> {
  let status: number;
  let text: string;
  try {
    const response = await fetch(request.url, {
      method: request.method,
      headers: { accept: 'application/json', ...request.headers },
      body: request.body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    status = response.status;
    text = await response.text();
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    throw new GatewayUnavailableError(gateway, 'timeout', timedOut ? `${gateway} did not answer within ${timeoutMs} ms` : `${gateway} could not be reached`);
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
