import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../http/app-context.ts';
import { CalendarDate } from '../../http/date-range.ts';
import { AppError, notFound, validationFailed } from '../../http/errors.ts';
import { errorResponses, IntegerId } from '../../http/schemas.ts';
import {
  findOrderDetails,
  listFilter,
  OrderDataSchema,
  OrderIdParams,
  OrderListQuery,
  toOrderData,
} from '../orders/index.ts';
import { refundPayment } from '../payments/index.ts';
import { recordAudit } from './audit.ts';
import { actorOf } from './dashboard-http.ts';
import { Empty } from './dashboard.schemas.ts';
import { orderPageExtras } from './order-page.repo.ts';
import { ordersCsv } from './orders-csv.ts';
import { dashboardOrdersPage, ORDER_COUNT_CAP } from './orders-page.repo.ts';
import { dashboardConfig, tags } from './route-options.ts';
import { accountTimeZone, salesSummary } from './sales-summary.repo.ts';

const Cents = Type.Integer({ minimum: 0 });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

const SummaryView = Type.Object({
  time_zone: Type.String(),
  initial_date: Type.String(),
  final_date: Type.String(),
  revenue_cents: Cents,
  paid_orders: Type.Integer(),
  card_approved: Type.Integer(),
  card_declined: Type.Integer(),
  card_approval_rate: Nullable(Type.Number({ description: '0..1; null when no card payment was decided' })),
  pix_generated: Type.Integer(),
  pix_paid: Type.Integer(),
  boleto_generated: Type.Integer(),
  boleto_paid: Type.Integer(),
  refunds: Type.Integer(),
  refunded_cents: Cents,
  chargebacks: Type.Integer(),
  daily: Type.Array(Type.Object({ day: Type.String(), revenue_cents: Cents, paid_orders: Type.Integer() })),
});

const OrderPageView = Type.Object({
  order: OrderDataSchema,
  totals: Type.Object({ total_cents: Cents, paid_cents: Cents, refunded_cents: Cents }),
  payments: Type.Array(
    Type.Object({
      id: Type.Integer(),
      gateway: Type.String(),
      method: Type.String(),
      status: Type.String(),
      amount_cents: Cents,
      interest_cents: Cents,
      refunded_cents: Cents,
      refundable_cents: Cents,
      gateway_id: Nullable(Type.String()),
      installments: Type.Integer(),
      paid_at: Nullable(Type.String()),
      created_at: Type.String(),
    }),
  ),
  events: Type.Array(
    Type.Object({
      id: Type.Integer(),
      type: Type.String(),
      cause: Type.String({ description: 'what moved the order: buyer, gateway webhook, worker, API or dashboard' }),
      from_status: Nullable(Type.String()),
      to_status: Nullable(Type.String()),
      payment_id: Nullable(Type.Integer()),
      data: Type.Record(Type.String(), Type.Unknown()),
      created_at: Type.String(),
    }),
  ),
  actions: Type.Array(
    Type.Object({
      actor: Type.String(),
      action: Type.String(),
      data: Type.Record(Type.String(), Type.Unknown()),
      created_at: Type.String(),
    }),
  ),
});

const CsvQuery = Type.Omit(OrderListQuery, ['page', 'limit']);

const DashboardOrdersIndex = Type.Object({
  meta: Type.Object({
    current_page: Type.Integer(),
    per_page: Type.Integer(),
    has_more: Type.Boolean({ description: 'another page follows this one' }),
    total_count: Type.Integer({
      description: `the matching orders, counted up to ${ORDER_COUNT_CAP}: the exact figure when total_count_exact, else "at least"`,
    }),
    total_count_exact: Type.Boolean(),
  }),
  data: Type.Array(OrderDataSchema),
});

/** The home figures, orders (list, page, CSV export) and refunds. */
export function registerSalesRoutes(parent: FastifyInstance, context: AppContext): void {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = context.database;
  const { config, clock } = context;
  const gatewayDeps = { masterKey: config.masterKey, gatewayUrls: context.gatewayUrls, clock };

  app.get(
    '/summary',
    {
      config: dashboardConfig('sales.read'),
      schema: {
        tags,
        summary: "Sales figures for a range of days in the account's time zone",
        querystring: Type.Object(
          { initial_date: CalendarDate(), final_date: CalendarDate() },
          { additionalProperties: false },
        ),
        response: { 200: SummaryView, ...errorResponses(401, 422) },
      },
    },
    async (request) => {
      const { initial_date: from, final_date: to } = request.query;
      if (to < from)
        throw validationFailed('final_date is before initial_date', [
          { field: 'querystring/final_date', message: 'must not be before initial_date' },
        ]);
      const accountId = actorOf(request).accountId;
      const zone = await accountTimeZone(db, accountId);
      const figures = await salesSummary(db, accountId, { from, to, zone });
      const decided = figures.card_approved + figures.card_declined;
      return {
        time_zone: zone,
        initial_date: from,
        final_date: to,
        ...figures,
        card_approval_rate: decided ? figures.card_approved / decided : null,
      };
    },
  );

  app.get(
    '/orders',
    {
      config: dashboardConfig('sales.read'),
      schema: {
        tags,
        summary: 'The orders, with every filter of GET /orders; counted up to a cap, with has_more',
        querystring: OrderListQuery,
        response: { 200: DashboardOrdersIndex, ...errorResponses(401, 422) },
      },
    },
    async (request) => {
      const page = await dashboardOrdersPage(db, actorOf(request).accountId, listFilter(request.query), {
        currentPage: request.query.page ?? 1,
        perPage: request.query.limit ?? 25,
      });
      return { meta: page.meta, data: page.details.map((details) => toOrderData(details, config.publicUrl)) };
    },
  );

  app.get(
    '/orders.csv',
    {
      config: dashboardConfig('orders.export'),
      schema: {
        tags,
        summary: 'The filtered orders as CSV, streamed',
        querystring: CsvQuery,
        produces: ['text/csv'],
        response: { 200: Type.String({ description: 'CSV, one order a line' }), ...errorResponses(401, 403, 422) },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const filter = listFilter(request.query);
      await recordAudit(db, { ...actor, action: 'orders.exported', data: { query: request.query }, at: clock() });
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="orders-${clock().toISOString().slice(0, 10)}.csv"`)
        .send(ordersCsv(db, actor.accountId, filter) as never);
    },
  );

  app.get(
    '/orders/:id',
    {
      config: dashboardConfig('sales.read'),
      schema: {
        tags,
        summary: "An order's page: the order, its payments, event log and who acted",
        params: OrderIdParams,
        response: { 200: OrderPageView, ...errorResponses(401, 404, 422) },
      },
    },
    async (request) => {
      const accountId = actorOf(request).accountId;
      const order = toOrderData(await findOrderDetails(db, accountId, request.params.id), config.publicUrl);
      return { order, ...(await orderPageExtras(db, accountId, request.params.id)) };
    },
  );

  app.post(
    '/payments/:id/refund',
    {
      config: {
        ...dashboardConfig('refunds.create'),
        idempotency: { scope: async (request: FastifyRequest) => request.dashboardSession?.accountId },
      },
      preValidation: async (request: FastifyRequest) => {
        if (request.headers['idempotency-key'] === undefined)
          throw validationFailed('Send an Idempotency-Key: one per refund submission', [
            { field: 'headers/idempotency-key', message: 'is required' },
          ]);
      },
      schema: {
        tags,
        summary: 'Refund a payment in full or in part (Idempotency-Key required)',
        params: Type.Object({ id: IntegerId() }, { additionalProperties: false }),
        body: Type.Object(
          { amount_cents: Type.Optional(Type.Integer({ minimum: 1, maximum: 9_999_999_999 })) },
          { additionalProperties: false },
        ),
        response: { 200: Empty, ...errorResponses(401, 403, 404, 409, 422, 502, 504) },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const payment = await db
        .selectFrom('payments')
        .select(['order_id'])
        .where('account_id', '=', actor.accountId)
        .where('id', '=', request.params.id)
        .executeTakeFirst();
      if (!payment) throw notFound('Payment');
      const amount = request.body.amount_cents;
      try {
        await refundPayment(
          db,
          gatewayDeps,
          actor.accountId,
          request.params.id,
          amount === undefined ? {} : { amount: amount / 100 },
          clock(),
        );
      } catch (error) {
        if (error instanceof AppError && error.status < 500) throw error;
        await recordAudit(db, {
          ...actor,
          action: 'refund.created',
          subject: `order:${payment.order_id}`,
          data: { payment_id: request.params.id, amount_cents: amount ?? null, outcome: 'error' },
          at: clock(),
        });
        throw error;
      }
      await recordAudit(db, {
        ...actor,
        action: 'refund.created',
        subject: `order:${payment.order_id}`,
        data: { payment_id: request.params.id, amount_cents: amount ?? null, outcome: 'refunded' },
        at: clock(),
      });
      return reply.code(200).send(null);
    },
  );
}
