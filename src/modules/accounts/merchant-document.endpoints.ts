import { endpointUrlProblem } from '../notifications/endpoints.service.ts';
import type { MerchantDocument } from './merchant-document.schema.ts';

/** Notification endpoints: one per url, a url an endpoint may have, and a company the document declares. */
export function notificationEndpointProblems(document: MerchantDocument, report: (path: string, message: string) => void): void {
  const urls = new Set<string>();
  const companySlugs = new Set(document.companies.map((company) => company.slug));
  document.notification_endpoints?.forEach((endpoint, i) => {
    const at = `notification_endpoints[${i}]`;
    if (urls.has(endpoint.url)) report(`${at}.url`, `duplicate notification endpoint url "${endpoint.url}"`);
    urls.add(endpoint.url);
    const urlProblem = endpointUrlProblem(endpoint.url);
    if (urlProblem) report(`${at}.url`, urlProblem);
    if (endpoint.company !== undefined && !companySlugs.has(endpoint.company)) report(`${at}.company`, `unknown company "${endpoint.company}" (not declared in this document)`);
  });
}
