import { setFlagsFromString } from 'node:v8';
import { ConfigError, loadConfig } from './config.ts';
import { isArgumentError, UsageError, type CommandFamily } from './cli/command.ts';

const usage = (triggerEvents: readonly string[]) => `Usage: checkout <command> [options]

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
                             ${triggerEvents.join(', ')}
  users add --account SLUG --email EMAIL --role owner|admin|finance|support
                             add a dashboard user and print a one-time sign-in link
  webhooks failed|replay …   inbound events whose job ran out of attempts, and their replay (\`checkout webhooks\` for details)

Configuration comes from the environment: PORT, HOST, DATABASE_URL, DATA_DIR, PUBLIC_URL, MASTER_KEY,
LOG_LEVEL, BODY_LIMIT_BYTES, DB_POOL_SIZE, METRICS_TOKEN, TRUST_PROXY, JOB_LEASE_SECONDS,
NOTIFICATIONS_ALLOW_PRIVATE_NETWORKS, SMTP_URL, MAIL_FROM (see README.md).`;

/** Which family each command belongs to; a family's code is loaded only when one of its commands runs. */
const families: Record<string, () => Promise<CommandFamily>> = {
  ...each(
    ['start', 'serve', 'worker', 'sandbox', 'migrate', 'seed'],
    async () => (await import('./cli/server-commands.ts')).serverCommands,
  ),
  ...each(['apply', 'keys'], async () => (await import('./cli/merchant-commands.ts')).merchantCommands),
  users: async () => (await import('./cli/user-commands.ts')).userCommands,
  ...each(
    ['notifications', 'listen', 'trigger'],
    async () => (await import('./cli/notification-commands.ts')).notificationCommands,
  ),
  webhooks: async () => (await import('./cli/webhook-commands.ts')).webhookCommands,
};

function each(names: string[], load: () => Promise<CommandFamily>): Record<string, () => Promise<CommandFamily>> {
  return Object.fromEntries(names.map((name) => [name, load]));
}

async function usageText(): Promise<string> {
  return usage((await import('./modules/notifications/index.ts')).TRIGGER_EVENTS);
}

/** Commands that run until they are stopped; every other command does one thing and exits. */
const LONG_RUNNING = new Set(['start', 'serve', 'worker', 'sandbox', 'listen']);

/**
 * A one-shot command on the embedded database runs PGlite's WebAssembly for a second or so: V8's optimizing tier
 * would compile its hot functions again in the background, costing more CPU than it saves before the exit
 * (`checkout apply` on PGlite: 2.2 s of CPU with it, 1.4 s without). Servers keep it.
 */
function tuneWebAssembly(command: string): void {
  if (!LONG_RUNNING.has(command)) setFlagsFromString('--liftoff-only');
}

let family: CommandFamily | undefined;

async function main(argv: string[]): Promise<void> {
  const [name, ...args] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    console.log(await usageText());
    return;
  }
  const load = families[name];
  if (!load) throw new UsageError(`unknown command "${name}"\n\n${await usageText()}`);
  tuneWebAssembly(name);
  family = await load();
  await family.commands[name]!(args, loadConfig());
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const exitCode =
    error instanceof UsageError || isArgumentError(error) ? 64 : (family?.exitCodeOf(error) ?? undefined);
  if (error instanceof ConfigError) console.error(`configuration error: ${error.message}`);
  else if (exitCode !== undefined) console.error((error as Error).message);
  else console.error(error);
  process.exitCode = exitCode ?? 1;
});
