import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { assertPublicAccess, companyFromHost, findPrimaryCompanyId } from '../accounts/index.ts';
import { forbidden, validationFailed } from '../../http/errors.ts';

export type CompanyScope = { accountId: string; companyId: number };

/**
 * The company a public POST /customers writes to: the checkout page's when `checkout_page_id` is
 * given, else the per-company host's (`<slug>.<PUBLIC_URL host>`), else the API key account's primary
 * company. The request must then pass the owner's host restriction (or carry the owner's key).
 */
export async function resolveCustomerScope(
  db: Kysely<DB>,
  request: FastifyRequest,
  publicHostname: string,
  checkoutPageId: string | undefined,
): Promise<CompanyScope> {
  const scope = await candidateScope(db, request, publicHostname, checkoutPageId);
  if (!scope)
    throw forbidden('No account owns this request: send the API key, use the company host or name a checkout_page_id');
  await assertPublicAccess(db, request, scope.accountId);
  return scope;
}

async function candidateScope(
  db: Kysely<DB>,
  request: FastifyRequest,
  publicHostname: string,
  checkoutPageId: string | undefined,
) {
  if (checkoutPageId !== undefined) {
    const page = await db
      .selectFrom('checkout_pages')
      .select(['account_id', 'company_id'])
      .where('id', '=', checkoutPageId.toLowerCase())
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (!page)
      throw validationFailed('checkout_page_id names no checkout page', [
        { field: 'body/checkout_page_id', message: 'unknown checkout page' },
      ]);
    return { accountId: page.account_id, companyId: page.company_id };
  }
  const hostCompany = await companyFromHost(db, request.headers.host, publicHostname);
  if (hostCompany) return { accountId: hostCompany.account_id, companyId: hostCompany.id };
  if (!request.apiKey) return undefined;
  const companyId = await findPrimaryCompanyId(db, request.apiKey.accountId);
  return companyId === undefined ? undefined : { accountId: request.apiKey.accountId, companyId };
}
