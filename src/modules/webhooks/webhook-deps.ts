import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { applyPaymentAction } from '../payments/index.ts';

export type ApplyAction = typeof applyPaymentAction;
/**
 * While an event is processed, `db` is the transaction that also marks it. `masterKey` seals what an event
 * makes secret at rest (a card a paid event names for later charges) and opens stored webhook credentials.
 */
export type WebhookDeps = { db: Kysely<DB>; clock: () => Date; applyAction: ApplyAction; masterKey: Buffer };

/** What applying one stored event did. */
export type ProcessOutcome = 'processed' | 'ignored';
