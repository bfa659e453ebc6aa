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
};

/** What every route and page is given: the dependencies with their defaults filled in. */
export type AppContext = Required<AppDependencies>;
