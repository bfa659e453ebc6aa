import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

export type DefaultPaymentPlan = { id: string; name: string; payment_method: string };

/** The look and payment settings of a hosted page (a cart page, a checkout page, or a company's defaults). */
export type Branding = {
  gateway: string;
  main_color: string;
  menus: unknown[];
  page_title: string;
  public_key: string;
  logo: string | null;
  currency: string;
  enable_coupons: boolean;
  enable_two_cards: boolean;
  custom_code: string;
  default_payment_plan: DefaultPaymentPlan | null;
  integrations: Record<string, unknown>;
};

export const DEFAULT_MAIN_COLOR = '#1a73e8';
/** The gateways a company's default branding may use, in order of preference. */
const CARD_GATEWAYS = ['gateway_a', 'gateway_b', 'gateway_c'] as const;

export function planRef(plan: {
  id: number | null;
  name: string | null;
  payment_method: string | null;
}): DefaultPaymentPlan | null {
  return plan.id === null ? null : { id: String(plan.id), name: plan.name!, payment_method: plan.payment_method! };
}

/**
 * A cart page's or checkout page's branding, with the company's publishable key for the page's gateway
 * ('' when none is configured) and its default payment plan when one is kept.
 */
export async function pageBranding(
  db: Kysely<DB>,
  table: 'cart_pages' | 'checkout_pages',
  accountId: string,
  pageId: string,
): Promise<Branding | undefined> {
  // Both page tables carry the same branding columns; the cast only lets one query serve both.
  const row = await db
    .selectFrom(`${table} as pg` as 'cart_pages as pg')
    .leftJoin('company_gateways as g', (join) =>
      join
        .onRef('g.account_id', '=', 'pg.account_id')
        .onRef('g.company_id', '=', 'pg.company_id')
        .onRef('g.gateway', '=', 'pg.gateway')
        .on('g.enabled', '=', true),
    )
    .leftJoin('payment_plans as pp', (join) =>
      join
        .onRef('pp.id', '=', 'pg.default_payment_plan_id')
        .onRef('pp.account_id', '=', 'pg.account_id')
        .on('pp.deleted_at', 'is', null),
    )
    .select([
      'pg.gateway',
      'pg.main_color',
      'pg.menus',
      'pg.page_title',
      'pg.logo_url',
      'pg.currency',
      'pg.enable_coupons',
      'pg.enable_two_cards',
      'pg.custom_code',
      'pg.integrations',
      'g.public_key',
      'pp.id as plan_id',
      'pp.name as plan_name',
      'pp.payment_method as plan_method',
    ])
    .where('pg.account_id', '=', accountId)
    .where('pg.id', '=', pageId)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    gateway: row.gateway,
    main_color: row.main_color,
    menus: Array.isArray(row.menus) ? row.menus : [],
    page_title: row.page_title,
    public_key: row.public_key ?? '',
    logo: row.logo_url,
    currency: row.currency,
    enable_coupons: row.enable_coupons,
    enable_two_cards: row.enable_two_cards,
    custom_code: row.custom_code ?? '',
    default_payment_plan: planRef({ id: row.plan_id, name: row.plan_name, payment_method: row.plan_method }),
    integrations:
      row.integrations && typeof row.integrations === 'object' && !Array.isArray(row.integrations)
        ? (row.integrations as Record<string, unknown>)
        : {},
  };
}

/**
 * The branding of a charge that came from no page: the company's name as the title, the default
 * colour, and its first enabled card gateway (gateway_a, then gateway_b, then gateway_c) with its key.
 */
export async function companyBranding(
  db: Kysely<DB>,
  accountId: string,
  companyId: number,
  currency: string,
): Promise<Branding> {
  const [company, gateways] = await Promise.all([
    db
      .selectFrom('companies')
      .select(['name', 'enable_two_cards'])
      .where('account_id', '=', accountId)
      .where('id', '=', companyId)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('company_gateways')
      .select(['gateway', 'public_key'])
      .where('account_id', '=', accountId)
      .where('company_id', '=', companyId)
      .where('enabled', '=', true)
      .where('gateway', 'in', [...CARD_GATEWAYS])
      .execute(),
  ]);
  const chosen = CARD_GATEWAYS.map((name) => gateways.find((row) => row.gateway === name)).find(
    (row) => row !== undefined,
  );
  return {
    gateway: chosen?.gateway ?? 'gateway_a',
    main_color: DEFAULT_MAIN_COLOR,
    menus: [],
    page_title: company.name,
    public_key: chosen?.public_key ?? '',
    logo: null,
    currency,
    enable_coupons: false,
    enable_two_cards: company.enable_two_cards,
    custom_code: '',
    default_payment_plan: null,
    integrations: {},
  };
}
