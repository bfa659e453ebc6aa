import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { GatewayName } from '../../gateways/port.ts';
import { businessRule, notFound } from '../../http/errors.ts';
import { generateKey } from '../accounts/index.ts';
import { findAccountBySlug } from './endpoints.repo.ts';

/** A trigger's API key works this long: enough for one order, its payment and its refund. */
const TRIGGER_KEY_MS = 10 * 60_000;

/**
 * What `checkout trigger` needs to act as the merchant through the public API: a short-lived API key of the
 * account, a checkout page that takes pix with one of its one-off products, and that page's gateway sandbox
 * (whose sandbox actions play the buyer paying and the chargeback).
 */
export async function issueTriggerKit(
  db: Kysely<DB>,
  gatewayUrls: Partial<Record<GatewayName, string>>,
  slug: string,
  now: Date,
) {
  const account = await findAccountBySlug(db, slug);
  if (!account) throw notFound('Account');
  const page = await db
    .selectFrom('checkout_pages as c')
    .innerJoin('checkout_page_payment_plans as cp', (join) =>
      join.onRef('cp.checkout_page_id', '=', 'c.id').onRef('cp.account_id', '=', 'c.account_id'),
    )
    .innerJoin('payment_plans as p', (join) =>
      join.onRef('p.id', '=', 'cp.payment_plan_id').onRef('p.account_id', '=', 'cp.account_id'),
    )
    .innerJoin('checkout_page_products as cpp', (join) =>
      join.onRef('cpp.checkout_page_id', '=', 'c.id').onRef('cpp.account_id', '=', 'c.account_id'),
    )
    .innerJoin('products as product', (join) =>
      join.onRef('product.id', '=', 'cpp.product_id').onRef('product.account_id', '=', 'cpp.account_id'),
    )
    .select(['c.id as page_id', 'c.company_id', 'c.gateway', 'p.id as plan_id', 'product.id as product_id'])
    .where('c.account_id', '=', account.id)
    .where('p.payment_method', '=', 'pix')
    .where('p.deleted_at', 'is', null)
    .where('product.subscription', '=', false)
    .orderBy('c.created_at')
    .orderBy('cpp.position')
    .limit(1)
    .executeTakeFirst();
  if (!page) throw businessRule('The account has no checkout page that takes pix for a one-off product');
  const gatewayUrl = gatewayUrls[page.gateway as GatewayName];
  if (!gatewayUrl) throw businessRule(`No sandbox serves ${page.gateway} here`);
  const key = generateKey();
  await db
    .insertInto('api_keys')
    .values({
      id: randomUUID(),
      account_id: account.id,
      key_id: key.keyId,
      key_hash: key.hash,
      label: 'checkout trigger',
      created_at: now,
      expires_at: new Date(now.getTime() + TRIGGER_KEY_MS),
    })
    .execute();
  return {
    api_key: key.plaintext,
    company_id: page.company_id,
    checkout_page_id: page.page_id,
    product_id: page.product_id,
    pix_payment_plan_id: `${page.plan_id}-1`,
    gateway: page.gateway,
    gateway_url: gatewayUrl,
  };
}

/** The payment a trigger made, by the gateway id the pay call answered, with its order. */
export async function findTriggeredPayment(db: Kysely<DB>, slug: string, gatewayId: string) {
  const account = await findAccountBySlug(db, slug);
  if (!account) throw notFound('Account');
  const row = await db
    .selectFrom('payments as p')
    .innerJoin('orders as o', (join) =>
      join.onRef('o.id', '=', 'p.order_id').onRef('o.account_id', '=', 'p.account_id'),
    )
    .select([
      'p.id as payment_id',
      'p.status as payment_status',
      'o.id as order_id',
      'o.uid as order_uid',
      'o.status as order_status',
    ])
    .where('p.account_id', '=', account.id)
    .where('p.gateway_id', '=', gatewayId)
    .executeTakeFirst();
  if (!row) throw notFound('Payment');
  return { ...row, payment_id: Number(row.payment_id), order_id: Number(row.order_id) };
}
