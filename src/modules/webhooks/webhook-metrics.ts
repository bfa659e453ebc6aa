import { Gauge, type Registry } from 'prom-client';
import type { Database } from '../../db/database.ts';
import { countFailedEvents } from './dead-events.ts';

/**
 * `webhook_events_failed`: acknowledged events whose application ran out of attempts and wait for a replay. Read
 * from the database at each scrape, so any API process reports what every worker left there.
 */
export function registerWebhookMetrics(registry: Registry, database: Database): void {
  new Gauge({
    name: 'webhook_events_failed',
    help: 'Inbound webhook events whose job ran out of attempts, waiting for a replay',
    registers: [registry],
    async collect() {
      this.set(await countFailedEvents(database.db));
    },
  });
}
