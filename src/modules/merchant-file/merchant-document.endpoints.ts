import { endpointUrlProblem } from '../notifications/index.ts';
import type { MerchantDocument } from './merchant-document.schema.ts';

/**
 * Every URL of the document (notification endpoints, logos, images, redirects): the notification endpoint's
 * rule (WHATWG `new URL()` parses it, http(s) only, no spaces or credentials), plus a host written after
 * `//` (the parser reads `http:///path` as host `path`) and a port a browser can connect to.
 */
export function documentUrlProblem(url: string): string | undefined {
  const problem = endpointUrlProblem(url);
  if (problem) return problem;
  if (/^https?:\/\/[/\\?#]/.test(url)) return 'must name a host after //';
  if (new URL(url).port === '0') return 'must have a port from 1 to 65535';
  return undefined;
}

/** Notification endpoints: one per url, a url an endpoint may have, and a company the document declares. */
export function notificationEndpointProblems(
  document: MerchantDocument,
  report: (path: string, message: string) => void,
): void {
  const urls = new Set<string>();
  const companySlugs = new Set(document.companies.map((company) => company.slug));
  document.notification_endpoints?.forEach((endpoint, i) => {
    const at = `notification_endpoints[${i}]`;
    if (urls.has(endpoint.url)) report(`${at}.url`, `duplicate notification endpoint url "${endpoint.url}"`);
    urls.add(endpoint.url);
    const urlProblem = documentUrlProblem(endpoint.url);
    if (urlProblem) report(`${at}.url`, urlProblem);
    if (endpoint.company !== undefined && !companySlugs.has(endpoint.company))
      report(`${at}.company`, `unknown company "${endpoint.company}" (not declared in this document)`);
  });
}
