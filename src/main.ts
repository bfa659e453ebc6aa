import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startCluster } from './cluster.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { migrate } from './db/migrate.ts';
import { wholeSecondsArgument } from './lib/cli-numbers.ts';
import { createLogger } from './lib/logger.ts';
import { rotateKey } from './modules/accounts/index.ts';
import {
  applyMerchant,
  MerchantApplyError,
  MerchantDocumentError,
  parseMerchantDocument,
} from './modules/merchant-file/index.ts';
import { demoOwnerSignInLink, runUsersCommand, UsersUsageError } from './modules/dashboard/index.ts';
import {
  deliverySettings,
  NotificationInputError,
  NotificationUsageError,
  runListen,
  runNotificationsCommand,
  runTrigger,
  ServiceCallError,
  TRIGGER_EVENTS,
} from './modules/notifications/index.ts';
import { runWebhooksCommand, WebhookCommandError, WebhookUsageError } from './modules/webhooks/index.ts';
import { createWorker, openConfiguredDatabase, startServer, stopOnSignals } from './runtime.ts';
import { startLocalSandboxes } from './sandbox-runtime.ts';
import { registerOrderTransitionHooks } from './order-hooks.ts';
import { seedDemo, type DemoSeedResult } from './modules/demo/index.ts';

const USAGE = `Usage: checkout <command> [options]

Commands:
  start                      migrate, load the demo merchant (idempotent) and serve
  serve [--no-worker] [--workers N]
                             migrate and serve the API (the worker runs in-process unless --no-worker);
                             --workers N runs N API processes on one port (PostgreSQL only)
  worker                     run the job worker alone (PostgreSQL only)
  migrate                    apply pending database migrations
  seed --demo [--json]       create or refresh the demo merchants; --json prints every id, key and credential
  apply FILE [--rotate-key]  create or update a merchant from a JSON or YAML file; prints ids and the API key as JSON
  sandbox [--port N]         run the three gateway sandboxes standalone (default port 4010)
  keys rotate --account SLUG [--grace-seconds N]
                             issue a new API key; the old ones expire after the grace period (default 86400)
  notifications add|list|enable|disable|rotate-secret|failed|redeliver|attempts …
                             merchant notification endpoints and deliveries (\`checkout notifications\` for details)
  listen --account SLUG --forward-to http://localhost:PORT/PATH [--events TYPE,TYPE…] [--service-url URL]
                             while it runs, the account's notifications also go, signed, to a receiver on this
                             machine; prints the session's signing secret and one line per delivery (needs the
                             service running, e.g. \`checkout start\`, with the same MASTER_KEY or DATA_DIR)
  trigger EVENT --account SLUG [--service-url URL]
                             make the running service produce a real EVENT: a pix paid at the gateway sandbox,
                             then refunded or charged back. EVENT is one of
                             ${TRIGGER_EVENTS.join(', ')}
  users add --account SLUG --email EMAIL --role owner|admin|finance|support
                             add a dashboard user and print a one-time sign-in link
  webhooks failed|replay …   inbound events whose job ran out of attempts, and their replay (\`checkout webhooks\` for details)

Configuration comes from the environment: PORT, HOST, DATABASE_URL, DATA_DIR, PUBLIC_URL, MASTER_KEY,
LOG_LEVEL, BODY_LIMIT_BYTES, DB_POOL_SIZE, METRICS_TOKEN, TRUST_PROXY, JOB_LEASE_SECONDS,
NOTIFICATIONS_ALLOW_PRIVATE_NETWORKS, SMTP_URL, MAIL_FROM (see README.md).`;

type Command = (args: string[], config: Config) => Promise<void>;

/** The process's clock: the commands' one reading of the wall clock, handed to everything they run. */
const processClock = () => new Date();

const commands: Record<string, Command> = {
  async start(_args, config) {
    const database = await openConfiguredDatabase(config);
    let demo: DemoSeedResult;
    let ownerLink: string;
    try {
      await migrate(database);
      demo = await seedDemo(database, config, processClock());
      ownerLink = await demoOwnerSignInLink(database.db, config.publicUrl, demo, processClock());
    } finally {
      await database.close();
    }
    const logger = createLogger(config.logLevel);
    // The local demo may notify a receiver on this machine unless told otherwise.
    const server = await startServer(
      { ...config, notificationsAllowPrivateNetworks: config.notificationsAllowPrivateNetworks ?? true },
      logger,
      { worker: true },
    );
    stopOnSignals(server.stop, logger);
    printWelcome(config, demo, ownerLink);
  },

  async serve(args, config) {
    const { values } = parseArgs({
      args,
      options: { 'no-worker': { type: 'boolean', default: false }, workers: { type: 'string', default: '1' } },
    });
    const processes = Number(values.workers);
    if (!Number.isInteger(processes) || processes < 1 || processes > 64)
      throw new UsageError('--workers must be a number of processes from 1 to 64');
    const logger = createLogger(config.logLevel);
    if (processes > 1 && cluster.isPrimary) {
      const running = await startCluster(config, logger, { processes });
      stopOnSignals(running.stop, logger);
      return;
    }
    const server = await startServer(config, logger, { worker: !values['no-worker'] });
    stopOnSignals(server.stop, logger);
  },

  async worker(_args, config) {
    if (!config.databaseUrl)
      throw new ConfigError(
        '`checkout worker` needs DATABASE_URL: the embedded database runs its worker inside `checkout serve`',
      );
    const logger = createLogger(config.logLevel);
    const database = await openConfiguredDatabase(config);
    await migrate(database);
    // A standalone worker reaches gateways through GATEWAY_*_URL (the in-process sandboxes live in `serve`).
    const worker = createWorker(
      database,
      logger,
      {
        masterKey: config.masterKey,
        gatewayUrls: config.gatewayUrls,
        clock: processClock,
        notifications: deliverySettings(config),
      },
      { leaseMs: config.jobLeaseMs },
    );
    worker.start();
    logger.info({ workerId: worker.workerId }, 'worker started');
    stopOnSignals(async () => {
      await worker.stop();
      await database.close();
    }, logger);
  },

  async sandbox(args, config) {
    const { values } = parseArgs({
      args,
      options: { port: { type: 'string', default: '4010' }, 'service-url': { type: 'string' } },
    });
    const port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port must be a port number');
    const logger = createLogger(config.logLevel);
    const database = await openConfiguredDatabase(config);
    await migrate(database);
    const serviceUrl = values['service-url'] ?? config.publicUrl;
    const sandboxes = await startLocalSandboxes(database, config, () => serviceUrl, { port, host: config.host });
    console.log(JSON.stringify({ gateways: sandboxes.urls, webhooks_to: serviceUrl }, null, 2));
    stopOnSignals(async () => {
      await sandboxes.close();
      await database.close();
    }, logger);
  },

  async migrate(_args, config) {
    await withDatabase(config, async (database) => {
      const applied = await migrate(database);
      console.log(applied.length ? `applied: ${applied.join(', ')}` : 'the database is up to date');
    });
  },

  async seed(args, config) {
    const { values } = parseArgs({ args, options: { demo: { type: 'boolean' }, json: { type: 'boolean' } } });
    if (!values.demo) throw new UsageError('seed needs --demo');
    await withDatabase(config, async (database) => {
      await migrate(database);
      const result = await seedDemo(database, config, processClock());
      console.log(values.json ? JSON.stringify(result, null, 2) : `demo merchant ready; API key: ${result.api_key}`);
    });
  },

  async apply(args, config) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: { 'rotate-key': { type: 'boolean' } },
    });
    const [file, ...extra] = positionals;
    if (!file) throw new UsageError('apply needs a FILE');
    if (extra.length > 0) throw new UsageError(`apply takes one FILE (also given: ${extra.join(' ')})`);
    const document = parseMerchantDocument(readText(file), file);
    await withDatabase(config, async (database) => {
      await migrate(database);
      const result = await applyMerchant(database, config.masterKey, document, {
        rotateKey: values['rotate-key'] === true,
        now: processClock(),
      });
      console.log(JSON.stringify(result, null, 2));
    });
  },

  async keys(args, config) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: { account: { type: 'string' }, 'grace-seconds': { type: 'string', default: '86400' } },
    });
    if (positionals[0] !== 'rotate' || !values.account)
      throw new UsageError('usage: keys rotate --account SLUG [--grace-seconds N]');
    const grace = wholeSecondsArgument(values['grace-seconds'], MAX_KEY_GRACE_SECONDS);
    if (grace === undefined)
      throw new UsageError(`--grace-seconds must be a whole number of seconds from 0 to ${MAX_KEY_GRACE_SECONDS}`);
    await withDatabase(config, async (database) => {
      await migrate(database);
      const account = await database.db
        .selectFrom('accounts')
        .select('id')
        .where('slug', '=', values.account!)
        .executeTakeFirst();
      if (!account) throw new UsageError(`no account with slug ${values.account}`);
      const key = await rotateKey(database.db, account.id, grace, processClock());
      console.log(
        JSON.stringify(
          { account_id: account.id, api_key: key.plaintext, previous_keys_expire_in_seconds: grace },
          null,
          2,
        ),
      );
    });
  },

  async users(args, config) {
    await withDatabase(config, async (database) => {
      await migrate(database);
      const output = await runUsersCommand(args, { db: database.db, publicUrl: config.publicUrl, now: processClock() });
      console.log(JSON.stringify(output, null, 2));
    });
  },

  async notifications(args, config) {
    await withDatabase(config, async (database) => {
      await migrate(database);
      const output = await runNotificationsCommand(args, {
        db: database.db,
        masterKey: config.masterKey,
        now: processClock(),
      });
      console.log(JSON.stringify(output, null, 2));
    });
  },

  async listen(args, config) {
    const stop = new AbortController();
    const end = () => stop.abort();
    process.once('SIGINT', end);
    process.once('SIGTERM', end);
    try {
      await runListen(
        args,
        { serviceUrl: config.publicUrl, masterKey: config.masterKey },
        stop.signal,
        (line) => console.log(line),
        processClock,
      );
    } finally {
      process.off('SIGINT', end);
      process.off('SIGTERM', end);
    }
  },

  async trigger(args, config) {
    const done = await runTrigger(args, { serviceUrl: config.publicUrl, masterKey: config.masterKey });
    console.log(JSON.stringify(done, null, 2));
  },

  async webhooks(args, config) {
    await withDatabase(config, async (database) => {
      await migrate(database);
      const output = await runWebhooksCommand(args, { db: database.db, now: processClock() });
      console.log(JSON.stringify(output, null, 2));
    });
  },
};

class UsageError extends Error {}

/** How long the previous API keys may keep working after a rotation: a year at most. */
const MAX_KEY_GRACE_SECONDS = 365 * 86_400;

/** A file's text, or a one-line usage error naming why it cannot be read (missing, a directory, no permission). */
function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/** `parseArgs` refusing an unknown option or a missing value: a usage error like any other. */
function isArgumentError(error: unknown): error is Error {
  return (
    typeof (error as { code?: unknown })?.code === 'string' &&
    (error as { code: string }).code.startsWith('ERR_PARSE_ARGS_')
  );
}

async function withDatabase<T>(
  config: Config,
  fn: (database: Awaited<ReturnType<typeof openConfiguredDatabase>>) => Promise<T>,
): Promise<T> {
  const database = await openConfiguredDatabase(config);
  try {
    return await fn(database);
  } finally {
    await database.close();
  }
}

function printWelcome(config: Config, demo: DemoSeedResult, ownerLink: string): void {
  const base = `${config.publicUrl}/api/v1`;
  console.log(`
Checkout service listening on ${base} (${config.databaseUrl ? 'PostgreSQL' : `embedded PGlite in ${config.dataDir}`})

  Demo API key:        ${demo.api_key}
  Allowed origin:      ${demo.allowed_origin}
  API reference:       ${config.publicUrl}/docs
  Dashboard:           ${config.publicUrl}/dashboard
  Sign in once as ${demo.dashboard_owner.email} (link valid for one use):
    ${ownerLink}

Try it:
  curl -s -H 'Authorization: Bearer ${demo.api_key}' ${base}/checkout_pages
  curl -s -H 'Origin: ${demo.allowed_origin}' ${base}/products/${demo.products.ebook}

Every demo id, key and credential: npx checkout seed --demo --json
`);
}

async function main(argv: string[]): Promise<void> {
  const [name, ...args] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    console.log(USAGE);
    return;
  }
  const command = commands[name];
  registerOrderTransitionHooks();
  if (!command) throw new UsageError(`unknown command "${name}"\n\n${USAGE}`);
  await command(args, loadConfig());
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ConfigError) console.error(`configuration error: ${error.message}`);
  else if (
    error instanceof UsageError ||
    error instanceof MerchantDocumentError ||
    error instanceof MerchantApplyError ||
    error instanceof NotificationInputError ||
    error instanceof UsersUsageError ||
    error instanceof WebhookCommandError ||
    error instanceof ServiceCallError ||
    isArgumentError(error)
  )
    console.error(error.message);
  else console.error(error);
  process.exitCode =
    error instanceof UsageError ||
    error instanceof NotificationUsageError ||
    error instanceof UsersUsageError ||
    error instanceof WebhookUsageError ||
    isArgumentError(error)
      ? 64
      : 1;
});
