import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Database } from '../../db/database.ts';
import { AppError, notFound } from '../../http/errors.ts';
import { errorResponses, IntegerId, Uuid } from '../../http/schemas.ts';
import { endSubscription } from '../payments/index.ts';
import { recordAudit } from './audit.ts';
import { customerPage, listCustomers, subscriptionPage } from './customers.repo.ts';
import { actorOf } from './dashboard-http.ts';
import { Empty } from './dashboard.schemas.ts';
import { dashboardConfig, tags } from './route-options.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const Cents = Type.Integer({ minimum: 0 });

const CustomerView = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  email: Type.String(),
  identification: Nullable(Type.String({ description: 'CPF or CNPJ, digits' })),
  phone: Nullable(Type.String()),
  created_at: Type.String(),
});

const OrderLine = Type.Object({
  id: Type.Integer(),
  uid: Type.String(),
  status: Type.String(),
  total_cents: Cents,
  created_at: Type.String(),
});

const SubscriptionView = Type.Object({
  id: Type.String(),
  status: Type.Union([Type.Literal('active'), Type.Literal('past_due'), Type.Literal('cancelled')]),
  interval: Type.String({ description: 'day, week, month or year' }),
  interval_count: Type.Integer(),
  amount_cents: Cents,
  origin_order_id: Type.Integer(),
  current_period_start: Type.String(),
  current_period_end: Type.String(),
  next_charge_at: Nullable(
    Type.String({ description: 'the next renewal; null once cancelled or while one is in flight' }),
  ),
  failed_attempts: Type.Integer({ description: 'failed renewals since the last paid one' }),
  renewal_method: Type.String(),
  cancelled_at: Nullable(Type.String()),
  created_at: Type.String(),
});

const SubscriptionParams = Type.Object({ id: Uuid() }, { additionalProperties: false });

/** Customers (search, a customer's orders and subscriptions) and subscriptions (page, cancel). */
export function registerCustomerRoutes(
  parent: FastifyInstance,
  context: { database: Database; clock: () => Date },
): void {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = context.database;
  const { clock } = context;

  app.get(
    '/customers',
    {
      config: dashboardConfig('sales.read'),
      schema: {
        tags,
        summary: 'Customers, newest first, searched by name, e-mail or document',
        querystring: Type.Object(
          {
            q: Type.Optional(Type.String({ maxLength: 200 })),
            page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            meta: Type.Object({
              current_page: Type.Integer(),
              total_pages: Type.Integer(),
              total_count: Type.Integer(),
              per_page: Type.Integer(),
            }),
            data: Type.Array(CustomerView),
          }),
          ...errorResponses(401, 422),
        },
      },
    },
    async (request) =>
      listCustomers(db, actorOf(request).accountId, {
        ...(request.query.q !== undefined ? { q: request.query.q } : {}),
        page: request.query.page ?? 1,
      }),
  );

  app.get(
    '/customers/:id',
    {
      config: dashboardConfig('sales.read'),
      schema: {
        tags,
        summary: "A customer's page: its orders and subscriptions",
        params: Type.Object({ id: IntegerId() }, { additionalProperties: false }),
        response: {
          200: Type.Object({
            customer: CustomerView,
            orders: Type.Array(OrderLine),
            subscriptions: Type.Array(SubscriptionView),
          }),
          ...errorResponses(401, 404, 422),
        },
      },
    },
    async (request) => {
      const page = await customerPage(db, actorOf(request).accountId, request.params.id);
      if (!page) throw notFound('Customer');
      return page;
    },
  );

  app.get(
    '/subscriptions/:id',
    {
      config: dashboardConfig('sales.read'),
      schema: {
        tags,
        summary: "A subscription's page: status, next renewal, renewal orders (paid and failed)",
        params: SubscriptionParams,
        response: {
          200: Type.Object({
            subscription: SubscriptionView,
            customer: Type.Object({ id: Type.Integer(), name: Type.String(), email: Type.String() }),
            renewals: Type.Array(OrderLine),
          }),
          ...errorResponses(401, 404, 422),
        },
      },
    },
    async (request) => {
      const page = await subscriptionPage(db, actorOf(request).accountId, request.params.id);
      if (!page) throw notFound('Subscription');
      return page;
    },
  );

  app.post(
    '/subscriptions/:id/cancel',
    {
      config: dashboardConfig('subscriptions.cancel'),
      schema: {
        tags,
        summary: 'Cancel a subscription now: no later period is charged (owners and admins)',
        params: SubscriptionParams,
        response: { 200: Empty, ...errorResponses(401, 403, 404, 409, 422) },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const at = clock();
      const ended = await db.transaction().execute(async (trx) => {
        const subscription = await endSubscription(trx, actor.accountId, { subscriptionId: request.params.id }, at);
        if (subscription)
          await recordAudit(trx, {
            ...actor,
            action: 'subscription.cancelled',
            subject: `subscription:${subscription.id}`,
            data: { origin_order_id: subscription.originOrderId },
            at,
          });
        return subscription;
      });
      if (!ended) {
        const page = await subscriptionPage(db, actor.accountId, request.params.id);
        if (!page) throw notFound('Subscription');
        throw new AppError('conflict', 'The subscription is already cancelled');
      }
      return reply.code(200).send(null);
    },
  );
}
