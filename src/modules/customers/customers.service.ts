import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Static } from 'typebox';
import type { DB } from '../../db/schema.ts';
import { AppError } from '../../http/errors.ts';
import { customerColumns } from './customer-fields.ts';
import type { CompanyScope } from './customer-scope.ts';
import { upsertCustomer, type CustomerRow } from './customers.repo.ts';
import type { CustomerBody } from './customers.schemas.ts';

type Body = Static<typeof CustomerBody>;

/** Creates the order of a `create_deal` upsert; the orders module provides it (customers import nothing of orders). */
export type DealCreator = (
  db: Kysely<DB>,
  deal: { scope: CompanyScope; customer: CustomerRow; body: Body },
  now: Date,
) => Promise<number>;

/**
 * Upserts the customer by email and, with `create_deal`, creates an order for it. The order is
 * created after the upsert and on its own: when it fails the customer stays saved, `orderId` is null
 * and the reason (an error code, never personal data) is logged.
 */
export async function upsertCustomerWithDeal(
  db: Kysely<DB>,
  scope: CompanyScope,
  body: Body,
  now: Date,
  log: FastifyBaseLogger,
  createDeal: DealCreator,
): Promise<{ customer: CustomerRow; orderId: number | null }> {
  const customer = await upsertCustomer(db, scope, customerColumns(body, ''), now);
  if (body.create_deal !== true) return { customer, orderId: null };
  try {
    const orderId = await createDeal(db, { scope, customer, body }, now);
    return { customer, orderId };
  } catch (error) {
    const reason =
      error instanceof AppError
        ? { code: error.code, fields: error.details.map((detail) => detail.field) }
        : { code: 'internal_error', error: (error as Error).name };
    log.warn(
      { customerId: customer.id, ...reason },
      'create_deal: the order could not be created; the customer was saved',
    );
    return { customer, orderId: null };
  }
}
