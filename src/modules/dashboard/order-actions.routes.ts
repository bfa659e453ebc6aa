import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Database } from '../../db/database.ts';
import { AppError, notFound } from '../../http/errors.ts';
import { errorResponses } from '../../http/schemas.ts';
import { redeliver } from '../notifications/index.ts';
import { OrderIdParams, transitionOrder, type OrderStatus } from '../orders/index.ts';
import { assertNoAttemptInFlight, cancelAttemptsOfCancelledOrder } from '../payments/index.ts';
import { recordAudit } from './audit.ts';
import { actorOf } from './dashboard-http.ts';
import { Empty } from './dashboard.schemas.ts';
import { dashboardConfig, tags } from './route-options.ts';

/** An order no money has reached: the only kind a merchant may cancel (a paid one is refunded instead). */
const CANCELLABLE: readonly OrderStatus[] = ['pending', 'waiting_payment'];

/** Acts on an order that move no money: cancel it while unpaid, send its latest notification again. */
export function registerOrderActionRoutes(
  parent: FastifyInstance,
  context: { database: Database; clock: () => Date },
): void {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = context.database;
  const { clock } = context;

  app.post(
    '/orders/:id/cancel',
    {
      config: dashboardConfig('orders.manage'),
      schema: {
        tags,
        summary:
          'Cancel an unpaid order (pending or waiting for payment); a paid order, or one with a payment under way at the gateway, answers 409',
        params: OrderIdParams,
        response: { 200: Empty, ...errorResponses(401, 403, 404, 409, 422) },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const at = clock();
      await db.transaction().execute(async (trx) => {
        // The order's payments first, then the order: the order the paid webhook locks them in, so the two never
        // wait for each other.
        await trx
          .selectFrom('payments')
          .select('id')
          .where('account_id', '=', actor.accountId)
          .where('order_id', '=', request.params.id)
          .orderBy('id')
          .forUpdate()
          .execute();
        const order = await trx
          .selectFrom('orders')
          .select(['status'])
          .where('account_id', '=', actor.accountId)
          .where('id', '=', request.params.id)
          .forUpdate()
          .executeTakeFirst();
        if (!order) throw notFound('Order');
        if (!CANCELLABLE.includes(order.status as OrderStatus))
          throw new AppError(
            'conflict',
            `Only an unpaid order can be cancelled; this one is ${order.status}${order.status === 'cancelled' ? '' : ' (refund it instead)'}`,
          );
        await assertNoAttemptInFlight(trx, actor.accountId, request.params.id, at);
        const moved = await transitionOrder(trx, {
          accountId: actor.accountId,
          orderId: request.params.id,
          to: 'cancelled',
          cause: `dashboard: cancelled by ${actor.actor}`,
          data: { user: actor.actor },
          at,
        });
        if (!moved.changed)
          throw new AppError('conflict', `The order is ${moved.current ?? 'gone'} and was not cancelled`);
        // Its pix or boleto are closed with it and voided at the gateway by the worker.
        const voided = await cancelAttemptsOfCancelledOrder(
          trx,
          { accountId: actor.accountId, orderId: request.params.id },
          `dashboard: order cancelled by ${actor.actor}`,
          at,
        );
        await recordAudit(trx, {
          ...actor,
          action: 'order.cancelled',
          subject: `order:${request.params.id}`,
          data: { from_status: moved.from, payments_cancelled: voided },
          at,
        });
      });
      return reply.code(200).send(null);
    },
  );

  app.post(
    '/orders/:id/resend_notification',
    {
      config: dashboardConfig('orders.manage'),
      schema: {
        tags,
        summary: "Send the order's latest notification event again to every endpoint it went to",
        params: OrderIdParams,
        response: {
          200: Type.Object({
            event_id: Type.String(),
            event_type: Type.String(),
            redelivered: Type.Integer({ description: 'deliveries sent again (one already queued is left as it is)' }),
          }),
          ...errorResponses(401, 403, 404, 409, 422),
        },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const order = await db
        .selectFrom('orders')
        .select('id')
        .where('account_id', '=', actor.accountId)
        .where('id', '=', request.params.id)
        .executeTakeFirst();
      if (!order) throw notFound('Order');
      const event = await db
        .selectFrom('notification_events')
        .select(['id', 'type'])
        .where('account_id', '=', actor.accountId)
        .where('order_id', '=', order.id)
        .where((eb) =>
          eb.exists(
            eb
              .selectFrom('notification_deliveries as d')
              .select('d.id')
              .whereRef('d.event_id', '=', 'notification_events.id'),
          ),
        )
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .executeTakeFirst();
      if (!event)
        throw new AppError('conflict', 'No notification was sent for this order: no endpoint wanted its events');
      const at = clock();
      const sent = await redeliver(db, event.id, at);
      await recordAudit(db, {
        ...actor,
        action: 'order.notification_resent',
        subject: `order:${order.id}`,
        data: { event_id: event.id, event_type: event.type, redelivered: sent.length },
        at,
      });
      return { event_id: event.id, event_type: event.type, redelivered: sent.length };
    },
  );
}
