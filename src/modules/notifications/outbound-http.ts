import { lookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/** Loopback, private, link-local, carrier-grade NAT, multicast and reserved ranges (IPv4-mapped IPv6 included). */
const PRIVATE_NETWORKS = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  PRIVATE_NETWORKS.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  PRIVATE_NETWORKS.addSubnet(network, prefix, 'ipv6');
}

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  return family !== 0 && PRIVATE_NETWORKS.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export class RefusedAddressError extends Error {}

/**
 * A DNS lookup that refuses private addresses. It runs when the socket connects, so a name that resolves
 * to a public address at registration and to a private one later (DNS rebinding) is still refused.
 */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  lookup(hostname, { ...options, all: true } as LookupAllOptions, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0);
    const refused = addresses.find((entry) => isPrivateAddress(entry.address));
    if (refused || addresses.length === 0)
      return callback(new RefusedAddressError(`${hostname} resolves to a private address`), '', 0);
    if ((options as { all?: boolean }).all)
      return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
    return callback(null, addresses[0]!.address, addresses[0]!.family);
  });
};

export type PostOptions = { timeoutMs: number; allowPrivateNetworks: boolean; maxResponseBytes: number };
export type PostResult = { statusCode?: number; responseBody?: string; error?: string; durationMs: number };

/**
 * POSTs a body and reports what happened; never throws. Redirects are not followed (a 3xx is an answer like
 * any other non-2xx), the whole exchange is bounded by `timeoutMs`, and at most `maxResponseBytes` of the
 * answer are kept.
 */
export async function postJson(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: PostOptions,
): Promise<PostResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const target = new URL(url);
    const host = target.hostname.replace(/^\[|\]$/g, '');
    // An address literal is never looked up, so it is checked here; a name is checked when it resolves.
    if (!options.allowPrivateNetworks && isPrivateAddress(host))
      throw new RefusedAddressError(`${host} is a private address`);
    const response = await send(target, body, headers, options);
    return { statusCode: response.statusCode, responseBody: response.body, durationMs: elapsed() };
  } catch (error) {
    return { error: describe(error, options.timeoutMs), durationMs: elapsed() };
  }
}

function send(
  target: URL,
  body: string,
  headers: Record<string, string>,
  options: PostOptions,
): Promise<{ statusCode: number; body: string }> {
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = request(target, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      signal: AbortSignal.timeout(options.timeoutMs),
      ...(options.allowPrivateNetworks ? {} : { lookup: publicOnlyLookup }),
    });
    outgoing.on('error', reject);
    outgoing.on('response', (response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      const finish = () =>
        resolve({ statusCode: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk.subarray(0, options.maxResponseBytes - kept));
        kept += Math.min(chunk.length, options.maxResponseBytes - kept);
        // The rest of a long answer is not read: the status is what counts.
        if (kept >= options.maxResponseBytes) {
          finish();
          response.destroy();
        }
      });
      response.on('error', reject);
      response.on('end', finish);
    });
    outgoing.end(body);
  });
}

function describe(error: unknown, timeoutMs: number): string {
  if (error instanceof RefusedAddressError)
    return `refused: ${error.message} (set NOTIFICATIONS_ALLOW_PRIVATE_NETWORKS=true to allow)`;
  const cause = error as { name?: string; code?: string; message?: string };
  if (cause.name === 'AbortError' || cause.name === 'TimeoutError') return `timed out after ${timeoutMs} ms`;
  return [cause.code, cause.message].filter(Boolean).join(': ').slice(0, 500) || 'request failed';
}
