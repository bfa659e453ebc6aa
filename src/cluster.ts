import cluster, { type Worker as ClusterWorker } from 'node:cluster';
import type { Logger } from 'pino';
import { ConfigError, type Config } from './config.ts';
import { migrate } from './db/migrate.ts';
import { openConfiguredDatabase } from './db/database.ts';
import { startLocalSandboxes, type LocalSandboxes } from './sandbox-runtime.ts';

export type ClusterOptions = { processes: number };
export type RunningCluster = { stop(): Promise<void> };

/**
 * `serve --workers N`: N API processes sharing one port (node:cluster), coordinated only through
 * PostgreSQL. The primary serves no requests: it migrates once, runs the gateway sandboxes the
 * processes share when no GATEWAY_*_URL is configured (one sandbox, so a card tokenized through one
 * process can be charged through another), forks the processes and replaces any that dies.
 */
export async function startCluster(config: Config, logger: Logger, options: ClusterOptions): Promise<RunningCluster> {
  if (!config.databaseUrl)
    throw new ConfigError('--workers needs DATABASE_URL: the embedded database can be opened by one process only');
  const database = await openConfiguredDatabase(config);
  const applied = await migrate(database);
  if (applied.length) logger.info({ applied }, 'migrations applied');
  const serviceUrl = `http://${config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host}:${config.port}`;
  const missing = (['gateway_a', 'gateway_b', 'gateway_c'] as const).some((name) => !config.gatewayUrls[name]);
  const sandboxes: LocalSandboxes | undefined = missing
    ? await startLocalSandboxes(database, config, () => serviceUrl)
    : undefined;
  const gatewayUrls = { ...sandboxes?.urls, ...config.gatewayUrls };
  // The forked processes run the same command line; these make them use the shared gateways.
  const env = Object.fromEntries(Object.entries(gatewayUrls).map(([name, url]) => [`${name.toUpperCase()}_URL`, url]));

  let stopping = false;
  const fork = (): ClusterWorker => {
    const child = cluster.fork(env);
    let listening = false;
    child.once('listening', () => (listening = true));
    child.once('exit', (code, signal) => {
      if (stopping) return;
      // A process that never listened (bad port, bad configuration) would fail again: stop everything.
      if (!listening) {
        logger.error({ childPid: child.process.pid, code, signal }, 'an API process exited before listening; stopping');
        void stop().then(() => process.exit(1));
        return;
      }
      logger.error({ childPid: child.process.pid, code, signal }, 'an API process died; starting a replacement');
      fork();
    });
    return child;
  };
  for (let index = 0; index < options.processes; index++) fork();
  logger.info({ processes: options.processes, gateways: sandboxes?.urls }, 'API processes starting');

  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      stopping = true;
      // Each process drains its own requests and job batch on SIGTERM (see stopOnSignals).
      const exits = Object.values(cluster.workers ?? {}).flatMap((child) => {
        if (!child || child.isDead()) return [];
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.process.kill('SIGTERM');
        return [exited];
      });
      await Promise.all(exits);
      await sandboxes?.close();
      await database.close();
    })());
  return { stop };
}
