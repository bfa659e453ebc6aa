import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { openConfiguredDatabase, type Database } from './db/database.ts';
import { migrate } from './db/migrate.ts';
import { maintenanceHandlers, scheduleMaintenance } from './jobs/maintenance.ts';
import {
  type PaymentJobDeps,
  paymentJobHandlers,
  scheduleDueRenewals,
  sweepPendingRefunds,
} from './modules/payments/index.ts';
import {
  deliverySettings,
  type DeliverySettings,
  notificationDeadJobHandlers,
  notificationJobHandlers,
} from './modules/notifications/index.ts';
import { webhookDeadJobHandlers, webhookJobHandlers } from './modules/webhooks/index.ts';
import { Worker } from './jobs/worker.ts';
import { type JobHandler } from './queue/job-handler.ts';
import { startLocalSandboxes } from './sandbox-runtime.ts';
import { registerOrderTransitionHooks } from './order-hooks.ts';

export type WorkerDeps = PaymentJobDeps & { notifications: DeliverySettings };

/** Every job type the worker knows; modules add their handlers here. */
export function jobHandlers(deps: WorkerDeps): Record<string, JobHandler> {
  registerOrderTransitionHooks();
  return {
    ...maintenanceHandlers(deps.clock),
    ...paymentJobHandlers(deps),
    ...webhookJobHandlers({ masterKey: deps.masterKey, clock: deps.clock }),
    ...notificationJobHandlers({ ...deps.notifications, masterKey: deps.masterKey, clock: deps.clock }),
  };
}

/** A worker with every handler; each tick schedules maintenance, sweeps due subscription renewals and pending refunds without a reconciliation job. */
export function createWorker(
  database: Database,
  logger: Logger,
  deps: WorkerDeps,
  options: { leaseMs?: number; pollIntervalMs?: number } = {},
): Worker {
  return new Worker({
    database,
    handlers: jobHandlers(deps),
    deadJobHandlers: { ...notificationDeadJobHandlers(deps.clock), ...webhookDeadJobHandlers(deps.clock) },
    logger,
    clock: deps.clock,
    ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
    ...(options.pollIntervalMs !== undefined ? { pollIntervalMs: options.pollIntervalMs } : {}),
    onTick: async () => {
      await scheduleMaintenance(database, deps.clock);
      await scheduleDueRenewals(database.db, deps.clock());
      await sweepPendingRefunds(database.db, deps.clock());
    },
  });
}

export type RunningServer = { app: FastifyInstance; worker: Worker | undefined; stop(): Promise<void> };

/**
 * Migrates, listens and (unless disabled) runs the worker in the same process. On PGlite the worker
 * always runs here: the embedded database is one connection that no other process can open.
 */
export async function startServer(
  config: Config,
  logger: Logger,
  options: { worker: boolean },
): Promise<RunningServer> {
  const database = await openConfiguredDatabase(config);
  const applied = await migrate(database);
  if (applied.length) logger.info({ applied }, 'migrations applied');
  // Gateways without a configured URL are served by sandboxes in this process.
  let listeningUrl: string | undefined;
  const missing = (['gateway_a', 'gateway_b', 'gateway_c'] as const).some((name) => !config.gatewayUrls[name]);
  const sandboxes = missing ? await startLocalSandboxes(database, config, () => listeningUrl) : undefined;
  const gatewayUrls = { ...sandboxes?.urls, ...config.gatewayUrls };
  const app = await buildApp({ config, database, logger, gatewayUrls, schemaCompilation: 'eager' });
  const address = await app.listen({ port: config.port, host: config.host });
  listeningUrl = address.replace('://0.0.0.0', '://127.0.0.1').replace('://[::]', '://127.0.0.1');
  if (sandboxes) logger.info({ gateways: sandboxes.urls }, 'gateway sandboxes running in-process');
  const worker =
    options.worker || database.engine === 'pglite'
      ? createWorker(
          database,
          logger,
          {
            masterKey: config.masterKey,
            gatewayUrls,
            clock: () => new Date(),
            notifications: deliverySettings(config),
          },
          { leaseMs: config.jobLeaseMs },
        )
      : undefined;
  worker?.start();
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      // Stop accepting, let in-flight requests finish, then the worker's current batch, then the pool.
      await app.close();
      await worker?.stop();
      await sandboxes?.close();
      await database.close();
    })());
  return { app, worker, stop };
}

/** Runs `stop` on SIGTERM/SIGINT, forcing an exit if draining takes longer than `timeoutMs`. */
export function stopOnSignals(stop: () => Promise<void>, logger: Logger, timeoutMs = 25_000): void {
  const onSignal = (signal: NodeJS.Signals) => {
    logger.info({ signal }, 'shutting down: draining in-flight work');
    const timer = setTimeout(() => {
      logger.error('shutdown timed out; exiting');
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    stop().then(
      () => process.exit(0),
      (error) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
}
