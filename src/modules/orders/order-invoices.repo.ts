import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

/** An invoice of the order the invoicing provider has authorized (and not cancelled since), if any. */
export function findAuthorizedInvoice(trx: Kysely<DB>, accountId: string, orderId: number) {
  return trx
    .selectFrom('invoices')
    .select('external_id')
    .where('account_id', '=', accountId)
    .where('order_id', '=', orderId)
    .where('status', '=', 'authorized')
    .orderBy('id')
    .executeTakeFirst();
}
