import { operatorToken } from '../../lib/operator-token.ts';

/** The running service refused or failed a CLI call; the message is the service's own. */
export class ServiceCallError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export type ServiceTarget = { serviceUrl: string; masterKey: Buffer };

/** One JSON call to the running service; `bearer` defaults to the operator token. */
export async function callService<T>(
  target: ServiceTarget,
  method: string,
  path: string,
  options: { body?: unknown; bearer?: string; base?: string } = {},
): Promise<T> {
  const url = `${options.base ?? target.serviceUrl}${path}`;
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers: {
        authorization: `Bearer ${options.bearer ?? operatorToken(target.masterKey)}`,
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    throw new ServiceCallError(0, `cannot reach ${url}: ${(error as Error).message} (is the service running?)`);
  }
  const text = await response.text();
  if (!response.ok) {
    let message = text;
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? text;
    } catch {
      // Not the service's JSON error: the text is the message.
    }
    throw new ServiceCallError(response.status, `${method} ${path}: ${response.status} ${message}`);
  }
  return (text ? JSON.parse(text) : undefined) as T;
}
