/** A fresh PostgreSQL database for a chaos run, migrated, with merchants selling on every gateway. */

import { randomBytes, randomUUID } from 'node:crypto';
import { openDatabase, type Database } from '../../../../src/db/database.ts';
import { migrate } from '../../../../src/db/migrate.ts';
import type { GatewayName } from '../../../../src/gateways/port.ts';
import { testConfig } from '../../../support/app.ts';
import { createFreshPostgresDatabase } from '../../../support/engines.ts';
import { createMerchant, insertPage, type Merchant } from '../../../support/pay-fixtures.ts';
import { storeCredentials } from '../../../support/webhooks-fixtures.ts';

export const GATEWAYS: GatewayName[] = ['gateway_a', 'gateway_b', 'gateway_c'];

/** A merchant with a checkout page and a cart page on each gateway, each offering card, pix and boleto. */
export type ChaosMerchant = Merchant & {
  pages: Record<GatewayName, string>;
  cartPages: Record<GatewayName, string>;
};

export type ChaosDeployment = {
  database: Database;
  databaseUrl: string;
  masterKey: string;
  merchants: ChaosMerchant[];
  drop(): Promise<void>;
};

export async function deployChaos(baseUrl: string, merchants: number): Promise<ChaosDeployment> {
  const fresh = await createFreshPostgresDatabase(baseUrl);
  const database = await openDatabase({ engine: 'postgres', url: fresh.url, poolSize: 5 });
  await migrate(database);
  const masterKey = randomBytes(32).toString('hex');
  const config = testConfig({ MASTER_KEY: masterKey });
  const created: ChaosMerchant[] = [];
  for (let index = 0; index < merchants; index++) {
    const merchant = await createMerchant(database, config);
    await storeCredentials(database, config, merchant);
    const plans = [merchant.cardPlanId, merchant.pixPlanId, merchant.boletoPlanId];
    const pages = { gateway_a: merchant.pageId } as Record<GatewayName, string>;
    const cartPages = {} as Record<GatewayName, string>;
    for (const gateway of GATEWAYS) {
      if (gateway !== 'gateway_a')
        pages[gateway] = await insertPage(database.db, merchant, { gateway, products: [merchant.productId], plans });
      cartPages[gateway] = await insertCartPage(database, merchant, gateway, plans);
    }
    created.push({ ...merchant, pages, cartPages });
  }
  return {
    database,
    databaseUrl: fresh.url,
    masterKey,
    merchants: created,
    drop: async () => {
      await database.close();
      await fresh.drop();
    },
  };
}

async function insertCartPage(
  database: Database,
  merchant: Merchant,
  gateway: GatewayName,
  plans: number[],
): Promise<string> {
  const id = randomUUID();
  await database.db
    .insertInto('cart_pages')
    .values({
      id,
      account_id: merchant.accountId,
      company_id: merchant.companyId,
      name: `Carrinho ${gateway}`,
      page_title: 'Carrinho',
      gateway,
      enable_two_cards: false,
      require_scheduling: false,
      enable_coupons: true,
    })
    .execute();
  for (const planId of plans)
    await database.db
      .insertInto('cart_page_payment_plans')
      .values({ account_id: merchant.accountId, cart_page_id: id, payment_plan_id: planId })
      .execute();
  return id;
}
