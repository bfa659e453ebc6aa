import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { OrderStatus } from './order-status.ts';

export type OrderTransition = { accountId: string; orderId: number; from: OrderStatus; to: OrderStatus; at: Date };

/** What another module does in the transaction of an order's transition (its merchant notification, a subscription's end). */
export type OrderTransitionHook = (trx: Kysely<DB>, transition: OrderTransition) => Promise<void>;

// Filled once at start-up by the process's composition (src/order-hooks.ts), so orders import neither the
// notifications nor the payments that react to them. A Set: registering the same hook twice runs it once.
const hooks = new Set<OrderTransitionHook>();

export function onOrderTransition(hook: OrderTransitionHook): void {
  hooks.add(hook);
}

/** Runs every registered hook, in registration order, on the transition's transaction. */
export async function runOrderTransitionHooks(trx: Kysely<DB>, transition: OrderTransition): Promise<void> {
  for (const hook of hooks) await hook(trx, transition);
}
