import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Static } from 'typebox';
import type { DB } from '../../db/schema.ts';
import { assertWithinAmountLimit } from '../../http/amount-limits.ts';
import { businessRule, notFound, validationFailed, type FieldError } from '../../http/errors.ts';
import { checkedIdentification } from '../customers/index.ts';
import { centsFromBody, optionalCentsFromBody } from '../../http/money-input.ts';
import { findCartPage, findCartProducts, insertCart } from './carts.repo.ts';
import type { CartCreateBody, CartCustomerBody, CartItemBody } from './carts.schemas.ts';

type CreateBody = Static<typeof CartCreateBody>;
type ItemBody = Static<typeof CartItemBody>;
type ProductRow = Awaited<ReturnType<typeof findCartProducts>>[number];

export type CartLine = {
  productId: number | null;
  name: string;
  externalId: string | null;
  quantity: number;
  unitCents: number;
  totalCents: number;
  imageUrl: string | null;
};

/**
 * An item by product `id` takes the product's name, price, external id and image, each overridden by
 * the item's own `value`, `external_id` or `image`; an item without `id` needs `name` and `value`.
 * `total` defaults to quantity × value.
 */
function cartLine(
  item: ItemBody,
  i: number,
  product: ProductRow | undefined,
  errors: FieldError[],
): CartLine | undefined {
  const field = (name: string) => `body/items/${i}/${name}`;
  const own: FieldError[] = [];
  if (item.id !== undefined && !product) own.push({ field: field('id'), message: 'unknown product' });
  if (item.id === undefined && item.name === undefined)
    own.push({ field: field('name'), message: 'is required without id' });
  if (item.id === undefined && item.value === undefined)
    own.push({ field: field('value'), message: 'is required without id' });
  errors.push(...own);
  if (own.length) return undefined;
  const quantity = item.quantity ?? 1;
  const unitCents = optionalCentsFromBody(item.value, `items/${i}/value`) ?? product!.value_cents;
  return {
    productId: product?.id ?? null,
    name: product?.name ?? item.name!,
    externalId: item.external_id ?? product?.external_id ?? null,
    quantity,
    unitCents,
    totalCents: optionalCentsFromBody(item.total, `items/${i}/total`) ?? unitCents * quantity,
    imageUrl: item.image ?? product?.image_url ?? null,
  };
}

function cartCustomer(customer: Static<typeof CartCustomerBody> | undefined): Record<string, string> {
  if (!customer) return {};
  const normalised = {
    ...customer,
    identification: checkedIdentification(customer.identification, false, 'body/customer/identification'),
    email: customer.email?.trim().toLowerCase(),
    state: customer.state?.toUpperCase(),
  };
  return Object.fromEntries(
    Object.entries(normalised).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

/**
 * Each line, the items, freight and the total the cart will be priced at (the override or the items, plus
 * freight) stay within the amount limit: a cart over it could be stored but never priced or paid.
 */
function assertCartWithinLimit(
  lines: readonly CartLine[],
  freightCents: number,
  overrideCents: number | undefined,
): void {
  const itemsCents = lines.reduce((sum, line) => sum + line.totalCents, 0);
  assertWithinAmountLimit('The cart', [
    ...lines.map((line, i) => ({ field: `body/items/${i}`, cents: line.totalCents })),
    { field: 'body/items', cents: itemsCents },
    { field: 'body/freight', cents: freightCents },
    { field: 'body', cents: (overrideCents ?? itemsCents) + freightCents },
  ]);
}

/** A cart worth nothing could never be paid (a payment is never of zero): its total with freight is positive. */
function assertPositiveTotal(
  lines: readonly CartLine[],
  freightCents: number,
  overrideCents: number | undefined,
): void {
  const itemsCents = lines.reduce((sum, line) => sum + line.totalCents, 0);
  if ((overrideCents ?? itemsCents) + freightCents <= 0)
    throw businessRule('The cart’s total must be positive: its items, total and freight are all zero', [
      { field: overrideCents === undefined ? 'body/items' : 'body/total', message: 'the total is zero' },
    ]);
}

/** Stores a cart of one of the account's cart pages; returns its UID. */
export async function createCart(
  db: Kysely<DB>,
  accountId: string,
  cartPageId: string,
  body: CreateBody,
  now: Date,
): Promise<string> {
  const page = await findCartPage(db, accountId, cartPageId.toLowerCase());
  if (!page) throw notFound('Cart page');
  const items = body.items ?? [];
  const products = new Map(
    (
      await findCartProducts(
        db,
        accountId,
        items.flatMap((item) => item.id ?? []),
      )
    ).map((row) => [row.id, row]),
  );
  const errors: FieldError[] = [];
  const lines = items.map((item, i) =>
    cartLine(item, i, item.id === undefined ? undefined : products.get(item.id), errors),
  );
  if (errors.length) throw validationFailed('An item of the cart is invalid', errors);
  const freightCents = body.freight === undefined ? 0 : centsFromBody(body.freight, 'freight');
  const overrideCents = optionalCentsFromBody(body.total, 'total');
  assertCartWithinLimit(lines as CartLine[], freightCents, overrideCents);
  const customer = cartCustomer(body.customer);
  if (lines.length === 0)
    throw validationFailed('A cart needs at least one item', [
      { field: 'body/items', message: 'must contain at least one item' },
    ]);
  assertPositiveTotal(lines as CartLine[], freightCents, overrideCents);
  const cartId = randomUUID();
  await insertCart(
    db,
    {
      id: cartId,
      account_id: accountId,
      company_id: page.company_id,
      cart_page_id: page.id,
      payment_method: body.payment_method,
      freight_cents: freightCents,
      total_override_cents: overrideCents ?? null,
      customer: JSON.stringify(customer),
      meta: JSON.stringify(body.meta ?? {}),
      created_at: now,
      updated_at: now,
    },
    (lines as CartLine[]).map((line, position) => ({
      account_id: accountId,
      cart_id: cartId,
      product_id: line.productId,
      name: line.name,
      external_id: line.externalId,
      quantity: line.quantity,
      unit_value_cents: line.unitCents,
      total_cents: line.totalCents,
      image_url: line.imageUrl,
      position,
    })),
  );
  return cartId;
}
