import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { GatewayName } from '../gateways/port.ts';

/** What the HTTP application is built from. */
export type AppDependencies = {
  config: Config;
  database: Database;
  logger: Logger;
  clock?: () => Date;
  /** Base URL of each gateway's API (live, standalone sandbox or in-process sandbox). */
  gatewayUrls?: Partial<Record<GatewayName, string>>;
  /**
   * `eager` compiles every route's request and response schemas before the app is ready (a long-running server:
   * a broken schema stops the start, and no first request pays for it); `lazy` (the default) compiles each on
   * its route's first use, for the short-lived processes (commands, test apps) that serve a few routes.
   */
  schemaCompilation?: 'eager' | 'lazy';
};

/** What every route and page is given: the dependencies with their defaults filled in. */
export type AppContext = Required<AppDependencies>;
