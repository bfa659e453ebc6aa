/** What the reconciliation compares: every sandbox ledger, and the service's payments, refunds and orders. */

import type { Database } from '../../../../src/db/database.ts';

export type LedgerRefund = { id: string; amount_cents: number; reference: string | null };
export type LedgerCharge = {
  sandbox: string;
  gateway: string;
  id: string;
  method: string;
  state: string;
  amount_cents: number;
  refunded_cents: number;
  refunds: LedgerRefund[];
  metadata: Record<string, string>;
};

/** Every charge of every gateway of every sandbox process (`GET /{gateway}/sandbox/charges`). */
export async function readLedgers(sandboxRoots: string[]): Promise<LedgerCharge[]> {
  const reads = sandboxRoots.flatMap((root) =>
    ['gateway_a', 'gateway_b', 'gateway_c'].map(async (gateway) => {
      const response = await fetch(`${root}/${gateway}/sandbox/charges`);
      if (response.status !== 200) throw new Error(`${root}/${gateway} ledger answered ${response.status}`);
      const { data } = (await response.json()) as { data: Omit<LedgerCharge, 'sandbox' | 'gateway'>[] };
      return data.map((charge) => ({ ...charge, sandbox: root, gateway }));
    }),
  );
  return (await Promise.all(reads)).flat();
}

export async function readRecords(database: Database) {
  const db = database.db;
  const [payments, refunds, orders] = await Promise.all([
    db
      .selectFrom('payments')
      .select([
        'id',
        'uid',
        'account_id',
        'company_id',
        'order_id',
        'gateway',
        'gateway_id',
        'method',
        'status',
        'amount_cents',
        'interest_cents',
        'refunded_cents',
        'meta',
      ])
      .execute(),
    db
      .selectFrom('refunds')
      .select(['id', 'uid', 'payment_id', 'amount_cents', 'status', 'type', 'gateway_refund_id'])
      .execute(),
    db.selectFrom('orders').select(['id', 'uid', 'account_id', 'status', 'total_cents', 'cart_id', 'meta']).execute(),
  ]);
  return { payments, refunds, orders };
}

export type Records = Awaited<ReturnType<typeof readRecords>>;
export type PaymentRecord = Records['payments'][number];

/** Payment statuses that mean the gateway captured the money (some or all of it may have gone back since). */
export const CAPTURED = new Set(['paid', 'partially_refunded', 'refunded', 'charged_back', 'waiting_cancellation']);
/** Order statuses that mean the order was bought. */
export const PURCHASED = new Set(['paid', 'billed', 'partially_refunded', 'refunded']);

export function metaOp(meta: unknown): string | undefined {
  const value = meta && typeof meta === 'object' ? (meta as Record<string, unknown>).chaos_op : undefined;
  return typeof value === 'string' ? value : undefined;
}
