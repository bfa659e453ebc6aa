/**
 * How a request's origin is matched against an account's allowed hosts:
 * - an entry is a host name, optionally with a port: `shop.example.com`, `localhost:5173`;
 * - `*.example.com` matches any subdomain at any depth, but not `example.com` itself;
 * - an entry without a port matches any port; with a port, only that port;
 * - comparison ignores case; the scheme is not compared (TLS is the deployment's concern).
 */
export function hostIsAllowed(origin: { hostname: string; port: string }, allowedHosts: readonly string[]): boolean {
  const hostname = origin.hostname.toLowerCase().replace(/\.$/, '');
  return allowedHosts.some((entry) => {
    const { pattern, port } = splitEntry(entry.toLowerCase().trim());
    if (port !== undefined && port !== origin.port) return false;
    if (pattern.startsWith('*.')) return hostname.endsWith(pattern.slice(1)) && hostname.length > pattern.length - 1;
    return hostname === pattern;
  });
}

function splitEntry(entry: string): { pattern: string; port: string | undefined } {
  const match = /^(.*?)(?::(\d{1,5}))?$/.exec(entry)!;
  return { pattern: match[1]!, port: match[2] };
}

/** A valid allowed-host entry: a host name or `*.` wildcard, optional port, no scheme or path. */
export function isValidAllowedHost(entry: string): boolean {
  return /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*(:\d{1,5})?$/i.test(entry);
}

/** The host that made a browser request: Origin first, then Referer. Undefined when neither parses. */
export function requestOrigin(headers: {
  origin?: string | string[];
  referer?: string | string[];
}): { hostname: string; port: string } | undefined {
  for (const raw of [headers.origin, headers.referer]) {
    const value = Array.isArray(raw) ? raw[0] : raw;
    if (!value || value === 'null') continue;
    try {
      const url = new URL(value);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') continue;
      return { hostname: url.hostname, port: url.port || (url.protocol === 'https:' ? '443' : '80') };
    } catch {
      continue;
    }
  }
  return undefined;
}
