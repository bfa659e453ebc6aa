import cluster from 'node:cluster';
import { parseArgs } from 'node:util';
import { startCluster } from '../cluster.ts';
import { ConfigError, type Config } from '../config.ts';
import { openConfiguredDatabase } from '../db/database.ts';
import { migrate } from '../db/migrate.ts';
import { createLogger } from '../lib/logger.ts';
import { demoOwnerSignInLink } from '../modules/dashboard/index.ts';
import { seedDemo, type DemoSeedResult } from '../modules/demo/index.ts';
import { deliverySettings } from '../modules/notifications/index.ts';
import { registerOrderTransitionHooks } from '../order-hooks.ts';
import { createWorker, startServer, stopOnSignals } from '../runtime.ts';
import { startLocalSandboxes } from '../sandbox-runtime.ts';
import { isArgumentError, processClock, UsageError, withDatabase, type CommandFamily } from './command.ts';

/** The commands that run the service, its worker and its sandboxes, and prepare its database. */
export const serverCommands: CommandFamily = {
  exitCodeOf: (error) => (error instanceof UsageError || isArgumentError(error) ? 64 : undefined),
  commands: {
    async start(_args, config) {
      registerOrderTransitionHooks();
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
      registerOrderTransitionHooks();
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
      registerOrderTransitionHooks();
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
      registerOrderTransitionHooks();
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
      registerOrderTransitionHooks();
      const { values } = parseArgs({ args, options: { demo: { type: 'boolean' }, json: { type: 'boolean' } } });
      if (!values.demo) throw new UsageError('seed needs --demo');
      await withDatabase(config, async (database) => {
        await migrate(database);
        const result = await seedDemo(database, config, processClock());
        console.log(values.json ? JSON.stringify(result, null, 2) : `demo merchant ready; API key: ${result.api_key}`);
      });
    },
  },
};

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
