import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { companyFromHost, type CompanyRef, findPrimaryCompanyId } from '../accounts/index.ts';

/**
 * The company a public request names when no resource does: the per-company host
 * (`<slug>.<public host>`) first, then the API key's account's primary company.
 */
export async function requestCompany(
  db: Kysely<DB>,
  request: FastifyRequest,
  publicHostname: string,
): Promise<CompanyRef | undefined> {
  const hostCompany = await companyFromHost(db, request.host, publicHostname);
  if (hostCompany) return { accountId: hostCompany.account_id, companyId: hostCompany.id };
  if (!request.apiKey) return undefined;
  const companyId = await findPrimaryCompanyId(db, request.apiKey.accountId);
  return companyId === undefined ? undefined : { accountId: request.apiKey.accountId, companyId };
}
