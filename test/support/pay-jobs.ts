import { sql } from 'kysely';
import type { Database } from '../../src/db/database.ts';
import { paymentJobHandlers } from '../../src/modules/payments/payments.jobs.ts';
import type { Job } from '../../src/queue/job-handler.ts';
import type { PayApp } from './pay-fixtures.ts';

/**
 * Runs the account's queued jobs of `type` as the worker would, whatever their due time (only those about
 * `paymentIds` when given); returns how many ran.
 */
export async function runQueuedJobs(
  database: Database,
  pay: PayApp,
  accountId: string,
  type: string,
  paymentIds?: number[],
): Promise<number> {
  const handlers = paymentJobHandlers({
    masterKey: pay.config.masterKey,
    gatewayUrls: { gateway_a: pay.sandboxes.baseUrlFor('gateway_a') },
    clock: () => new Date(),
  });
  let query = database.db
    .selectFrom('jobs')
    .select(['id', 'payload'])
    .where('type', '=', type)
    .where('status', '=', 'queued')
    .where('account_id', '=', accountId);
  if (paymentIds)
    query = query.where(
      sql<string>`payload->>'payment_id'`,
      'in',
      paymentIds.length ? paymentIds.map(String) : ['none'],
    );
  const jobs = await query.orderBy('id').execute();
  for (const queued of jobs) {
    const job: Job = { id: queued.id, type, payload: queued.payload, accountId, attempts: 1 };
    await handlers[type]!(job, { database });
    await database.db.updateTable('jobs').set({ status: 'done' }).where('id', '=', queued.id).execute();
  }
  return jobs.length;
}

type LedgerEntry = { id: string; state: string; amount_cents: number; refunded_cents: number };

async function sandboxLedgerEntry(pay: PayApp, gatewayId: string): Promise<LedgerEntry | undefined> {
  const ledger = (await (await fetch(`${pay.sandboxes.baseUrlFor('gateway_a')}/sandbox/charges`)).json()) as {
    data: LedgerEntry[];
  };
  return ledger.data.find((entry) => entry.id === gatewayId);
}

/** The gateway_a sandbox's view of a charge: its state, or 'refunded' once its whole amount was given back. */
export async function sandboxChargeState(pay: PayApp, gatewayId: string): Promise<string | undefined> {
  const charge = await sandboxLedgerEntry(pay, gatewayId);
  return charge && charge.amount_cents > 0 && charge.refunded_cents === charge.amount_cents
    ? 'refunded'
    : charge?.state;
}

/** The amount the gateway_a sandbox charged (or issued a pix or boleto for), in cents. */
export async function sandboxChargeAmount(pay: PayApp, gatewayId: string): Promise<number | undefined> {
  return (await sandboxLedgerEntry(pay, gatewayId))?.amount_cents;
}

/** The buyer pays a pix or boleto at the gateway_a sandbox (no webhook is delivered by the pay suites' sandboxes). */
export async function payAtSandbox(pay: PayApp, gatewayId: string): Promise<number> {
  return (
    await fetch(`${pay.sandboxes.baseUrlFor('gateway_a')}/sandbox/charges/${gatewayId}/confirm`, { method: 'POST' })
  ).status;
}
