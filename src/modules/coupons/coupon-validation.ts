import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { companyFromHost, type CompanyRef, findPrimaryCompanyId } from '../accounts/index.ts';
import { businessRule, validationFailed } from '../../http/errors.ts';
import { findProductOwners } from './coupons.repo.ts';

const ID_LIST = /^\s*[1-9][0-9]{0,14}\s*(,\s*[1-9][0-9]{0,14}\s*)*$/;
const MAX_PRODUCTS = 100;

/** `product_id`: one id or a comma-separated list (`7` or `7,12`); absent means none. */
export function parseProductIdList(raw: string | undefined): number[] {
  if (raw === undefined) return [];
  if (!ID_LIST.test(raw))
    throw validationFailed('product_id must be a product id or a comma-separated list of product ids');
  const ids = raw.split(',').map((id) => Number(id.trim()));
  if (ids.length > MAX_PRODUCTS) throw validationFailed(`product_id lists at most ${MAX_PRODUCTS} products`);
  return [...new Set(ids)];
}

/**
 * Whose coupon the code is: the company of the per-company host; else the company of the listed
 * products (they must share one); else the API key's account's primary company. The listed products
 * must all be kept products of that company.
 */
export async function couponCompany(
  db: Kysely<DB>,
  request: FastifyRequest,
  publicHostname: string,
  productIds: number[],
): Promise<CompanyRef> {
  const owners = await findProductOwners(db, productIds);
  if (owners.length !== productIds.length) throw businessRule('Product not found');
  const company = await namedCompany(db, request, publicHostname, owners);
  if (owners.some((owner) => owner.account_id !== company.accountId || owner.company_id !== company.companyId))
    throw businessRule('Product not found');
  return company;
}

async function namedCompany(
  db: Kysely<DB>,
  request: FastifyRequest,
  publicHostname: string,
  owners: { account_id: string; company_id: number }[],
): Promise<CompanyRef> {
  const hostCompany = await companyFromHost(db, request.host, publicHostname);
  if (hostCompany) return { accountId: hostCompany.account_id, companyId: hostCompany.id };
  const first = owners[0];
  if (first) {
    if (owners.some((owner) => owner.company_id !== first.company_id))
      throw businessRule('The products belong to different companies');
    return { accountId: first.account_id, companyId: first.company_id };
  }
  const companyId = request.apiKey ? await findPrimaryCompanyId(db, request.apiKey.accountId) : undefined;
  if (!request.apiKey || companyId === undefined)
    throw businessRule('Send product_id, an API key, or use the company’s own host');
  return { accountId: request.apiKey.accountId, companyId };
}
