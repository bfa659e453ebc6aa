import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Static } from 'typebox';
import type { DB } from '../../db/schema.ts';
import { AppError, businessRule, validationFailed } from '../../http/errors.ts';
import { hasAtMostTwoDecimals, toCents, toMajor } from '../../lib/money.ts';
import { findPrimaryCompanyId } from '../accounts/index.ts';
import type { ProductCreateBody, ProductCreateResponseSchema, ProductShowSchema } from './catalog.schemas.ts';
import { findGatewayPublicKey, type findProduct } from './products.repo.ts';

type CreateInput = Static<typeof ProductCreateBody>;
type CreateResult = Static<typeof ProductCreateResponseSchema>;
type ProductRow = NonNullable<Awaited<ReturnType<typeof findProduct>>>;

/** The text a customer reads: the description, else the short one, else nothing. */
export function productDescription(row: { description: string | null; short_description: string | null }): string {
  return row.description ?? row.short_description ?? '';
}

/** ProductShow: weight and image only when set. */
export function toProductShow(product: ProductRow): Static<typeof ProductShowSchema> {
  return {
    id: product.id,
    name: product.name,
    description: productDescription(product),
    subscription: product.subscription,
    value: toMajor(product.value_cents),
    ...(product.weight_grams !== null ? { weight: product.weight_grams } : {}),
    ...(product.image_url !== null ? { image: product.image_url } : {}),
  };
}

/** The publishable gateway_a key of the product's company; a company without that integration is a business-rule refusal. */
export async function productGatewayAPublicKey(db: Kysely<DB>, product: ProductRow): Promise<{ public_key: string }> {
  const publicKey = await findGatewayPublicKey(db, product.account_id, product.company_id, 'gateway_a');
  if (publicKey === undefined) throw businessRule("The product's company has no gateway_a integration");
  return { public_key: publicKey };
}

/** Creates a product in one of the account's companies (the primary one unless `company_id` names another). */
export async function createProduct(db: Kysely<DB>, accountId: string, input: CreateInput): Promise<CreateResult> {
  if (!hasAtMostTwoDecimals(input.value))
    throw validationFailed('value has more than two decimals', [
      { field: 'body/value', message: 'must have at most two decimals' },
    ]);
  const companyId = input.company_id ?? (await findPrimaryCompanyId(db, accountId));
  const company = companyId
    ? await db
        .selectFrom('companies')
        .select(['id', 'name'])
        .where('account_id', '=', accountId)
        .where('id', '=', companyId)
        .executeTakeFirst()
    : undefined;
  if (!company)
    throw validationFailed('company_id is not a company of this account', [
      { field: 'body/company_id', message: 'unknown company' },
    ]);
  const taxConfiguration = await ownedRef(
    db,
    'tax_configurations',
    accountId,
    company.id,
    input.tax_configuration_id,
    'tax_configuration_id',
  );
  const financialAccount = await ownedRef(
    db,
    'financial_accounts',
    accountId,
    company.id,
    input.financial_account_id,
    'financial_account_id',
  );
  const row = await db
    .insertInto('products')
    .values({
      uid: randomUUID(),
      account_id: accountId,
      company_id: company.id,
      name: input.name,
      description: input.description ?? null,
      short_description: input.short_description ?? null,
      tax_description: input.tax_description ?? null,
      unit_name: input.unit_name ?? 'unit',
      weight_grams: input.weight ?? null,
      ncm: input.ncm ?? null,
      value_cents: toCents(input.value),
      external_id: input.external_id ?? null,
      tax_configuration_id: taxConfiguration?.id ?? null,
      financial_account_id: financialAccount?.id ?? null,
    })
    .onConflict((oc) => oc.doNothing())
    .returning(['id', 'name', 'description', 'short_description', 'value_cents', 'tax_description', 'ncm', 'unit_name'])
    .executeTakeFirst();
  if (!row) throw new AppError('conflict', 'A product with this external_id already exists in the company');
  return {
    id: row.id,
    name: row.name,
    description: productDescription(row),
    value: toMajor(row.value_cents),
    tax_description: row.tax_description ?? '',
    ncm: row.ncm ?? '',
    unit: { name: row.unit_name },
    company: { id: company.id, name: company.name },
    ...(taxConfiguration ? { tax_configuration: taxConfiguration } : {}),
    ...(financialAccount ? { financial_account: financialAccount } : {}),
  };
}

async function ownedRef(
  db: Kysely<DB>,
  table: 'tax_configurations' | 'financial_accounts',
  accountId: string,
  companyId: number,
  id: number | undefined,
  field: string,
): Promise<{ id: number; name: string } | undefined> {
  if (id === undefined) return undefined;
  const row = await db
    .selectFrom(table)
    .select(['id', 'name'])
    .where('account_id', '=', accountId)
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row)
    throw validationFailed(`${field} is not one of the company's`, [{ field: `body/${field}`, message: 'unknown id' }]);
  return row;
}
