import type { IncomingHttpHeaders } from 'node:http';

export type SandboxRequest = {
  method: string;
  path: string;
  params: Record<string, string>;
  query: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: unknown;
  /** Aborted when the caller hangs up or the sandboxes close. */
  signal: AbortSignal;
};

export type SandboxReply = { status: number; body?: unknown; headers?: Record<string, string> };
export type SandboxHandler = (request: SandboxRequest) => SandboxReply | Promise<SandboxReply>;

/** A refusal a handler throws; each gateway renders it in its own error shape. */
export class SandboxError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly param?: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

type Route = { method: string; segments: string[]; handler: SandboxHandler; cors: boolean };
export type RouteMatch = { handler: SandboxHandler; params: Record<string, string>; cors: boolean };

/** Method + path patterns (`/charges/:id/refund`) of one gateway's sandbox, and how it writes errors. */
export class SandboxRouter {
  readonly #routes: Route[] = [];

  constructor(readonly renderError: (error: SandboxError) => unknown) {}

  add(method: 'GET' | 'POST', pattern: string, handler: SandboxHandler, options: { cors?: boolean } = {}): this {
    this.#routes.push({ method, segments: splitPath(pattern), handler, cors: options.cors ?? false });
    return this;
  }

  match(method: string, path: string): RouteMatch | undefined {
    const segments = splitPath(path);
    for (const route of this.#routes) {
      if (route.method !== method) continue;
      const params = matchSegments(route.segments, segments);
      if (params) return { handler: route.handler, params, cors: route.cors };
    }
    return undefined;
  }

  /** True when some route of this path answers browsers (so an OPTIONS preflight gets CORS headers). */
  allowsCors(path: string): boolean {
    const segments = splitPath(path);
    return this.#routes.some((route) => route.cors && matchSegments(route.segments, segments) !== undefined);
  }
}

function splitPath(path: string): string[] {
  return path.split('/').filter((segment) => segment !== '');
}

function matchSegments(pattern: string[], actual: string[]): Record<string, string> | undefined {
  if (pattern.length !== actual.length) return undefined;
  const params: Record<string, string> = {};
  for (const [index, part] of pattern.entries()) {
    const value = actual[index]!;
    if (part.startsWith(':')) {
      try {
        params[part.slice(1)] = decodeURIComponent(value);
      } catch {
        return undefined;
      }
    } else if (part !== value) {
      return undefined;
    }
  }
  return params;
}
