import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import type { GatewayName } from './gateways/port.ts';
import { sandboxGatewayUrls, startSandboxes, type WebhookTarget } from './gateways/sandbox/server.ts';
import { unseal } from './lib/crypto.ts';

const REFRESH_MS = 5_000;

export type LocalSandboxes = { urls: Record<GatewayName, string>; close(): Promise<void> };

/**
 * The gateway sandboxes, in this process or standalone. Like a real gateway's dashboard, each sandbox
 * holds the webhook endpoint and credentials of every company: read from the database every few
 * seconds, so `checkout apply` changes reach it without a restart. `serviceUrl()` is where this
 * service listens (known only once it does).
 */
export async function startLocalSandboxes(
  database: Database,
  config: Pick<Config, 'masterKey'>,
  serviceUrl: () => string | undefined,
  options: { port?: number; host?: string; webhookAttemptTimeoutMs?: number } = {},
): Promise<LocalSandboxes> {
  let credentials = new Map<string, { username: string | null; secret: string }>();
  const refresh = async () => {
    const rows = await database.db
      .selectFrom('company_webhook_credentials')
      .select(['company_id', 'receiver', 'username', 'secret_encrypted'])
      .where('receiver', 'in', ['gateway_a', 'gateway_b'])
      .execute();
    credentials = new Map(
      rows.map((row) => [
        `${row.receiver}:${row.company_id}`,
        { username: row.username, secret: unseal(config.masterKey, row.secret_encrypted) },
      ]),
    );
  };
  await refresh();
  const timer = setInterval(() => void refresh().catch(() => {}), REFRESH_MS);
  timer.unref();

  const targetFor = (gateway: GatewayName, companyId: number): WebhookTarget | undefined => {
    const base = serviceUrl();
    const credential = credentials.get(`${gateway}:${companyId}`);
    if (!base || !credential) return undefined;
    if (gateway === 'gateway_a' && credential.username)
      return {
        url: `${base}/api/v1/webhooks`,
        basicAuth: { username: credential.username, password: credential.secret },
      };
    if (gateway === 'gateway_b')
      return { url: `${base}/api/v1/webhooks/${companyId}/gateway_b`, signingSecret: credential.secret };
    return undefined;
  };
  const sandboxes = await startSandboxes({
    port: options.port ?? 0,
    host: options.host ?? '127.0.0.1',
    webhookTargets: targetFor,
    ...(options.webhookAttemptTimeoutMs !== undefined
      ? { webhookAttemptTimeoutMs: options.webhookAttemptTimeoutMs }
      : {}),
  });
  return {
    urls: sandboxGatewayUrls(sandboxes),
    close: async () => {
      clearInterval(timer);
      await sandboxes.close();
    },
  };
}
