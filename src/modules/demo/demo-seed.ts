import type { Config } from '../../config.ts';
import type { Database } from '../../db/database.ts';
import { deriveSecret } from '../../lib/crypto.ts';
import { ensureDashboardUser } from '../dashboard/index.ts';
import { composeKey } from '../accounts/index.ts';
import { ensureDemoCharges, type DemoCharges } from './demo-charges.ts';
import { demoMerchantDocument, otherMerchantDocument } from './demo-merchant.ts';
import { applyMerchant, type ApplyResult } from '../merchant-file/index.ts';

export type DemoSeedResult = ApplyResult & {
  api_key: string;
  allowed_origin: string;
  company_id: number;
  charges: DemoCharges;
  webhook_credentials: Record<string, { username?: string; password?: string; secret?: string }>;
  gateway_public_keys: Record<string, string>;
  other_account: ApplyResult & { api_key: string; allowed_origin: string };
  /** The demo merchant's dashboard owner (`npm start` prints a one-time sign-in link for it). */
  dashboard_owner: { user_id: string; email: string };
};

export const DEMO_OWNER_EMAIL = 'dono@loja-demo.example';

/**
 * Creates or refreshes the demo merchant and a second account. Idempotent: keys and credentials are
 * derived from the master key, so every run prints the same values for one installation.
 */
export async function seedDemo(
  database: Database,
  config: Pick<Config, 'masterKey'>,
  now: Date,
): Promise<DemoSeedResult> {
  const secret = (purpose: string) => deriveSecret(config.masterKey, `demo:${purpose}`).toString('base64url');
  const demoKey = demoApiKey(config.masterKey, 'demo');
  const otherKey = demoApiKey(config.masterKey, 'other-demo');
  const demoDocument = demoMerchantDocument(secret);
  // The demo keys are the ones printed: a rotation of a demo account since is undone, so they always work.
  const demo = await applyMerchant(database, config.masterKey, demoDocument, {
    apiKey: demoKey,
    restoreKey: true,
    now,
  });
  const other = await applyMerchant(database, config.masterKey, otherMerchantDocument(secret), {
    apiKey: otherKey,
    restoreKey: true,
    now,
  });
  const company = demoDocument.companies[0]!;
  const companyId = demo.companies[company.slug]!;
  const charges = await ensureDemoCharges(database, config.masterKey, demo.account_id, companyId, demo.products, now);
  const owner = await ensureDashboardUser(database.db, {
    accountId: demo.account_id,
    email: DEMO_OWNER_EMAIL,
    role: 'owner',
  });
  return {
    ...demo,
    api_key: demoKey.plaintext,
    allowed_origin: 'http://localhost:5173',
    company_id: companyId,
    charges,
    webhook_credentials: Object.fromEntries(
      (company.webhook_credentials ?? []).map(({ receiver, ...credential }) => [receiver, credential]),
    ),
    gateway_public_keys: Object.fromEntries(
      (company.gateways ?? []).filter((g) => g.public_key).map((g) => [g.gateway, g.public_key!]),
    ),
    other_account: { ...other, api_key: otherKey.plaintext, allowed_origin: 'https://outra.example.com' },
    dashboard_owner: { user_id: owner.id, email: owner.email },
  };
}

function demoApiKey(masterKey: Buffer, account: string) {
  return composeKey(
    deriveSecret(masterKey, `demo-key-id:${account}`, 8).toString('hex'),
    deriveSecret(masterKey, `demo-key:${account}`),
  );
}
