import { Link } from 'wouter-preact';
import { answer, dashboardClient } from '../client.ts';
import { useDashboard } from '../context.ts';
import { dateTime, money } from '../format.ts';
import type { MessageKey } from '../i18n.ts';
import { statusLabel } from '../i18n.ts';
import { Loading, PageTitle, useLoad } from '../ui.tsx';

/** A customer's contact, its orders and its subscriptions. */
export function CustomerPage({ id }: { id: string }) {
  const { t, locale, session } = useDashboard();
  const state = useLoad(
    () => answer(dashboardClient.GET('/dashboard/customers/{id}', { params: { path: { id: Number(id) } } })),
    [id],
  );
  const data = state.data;
  const zone = session.account.time_zone;
  return (
    <section aria-labelledby="page-title">
      <PageTitle>{data ? data.customer.name : t('customer.title')}</PageTitle>
      <Loading state={state} />
      {data && (
        <div class="grid">
          <div class="card">
            <dl class="pairs">
              <dt>{t('customers.email')}</dt>
              <dd class="break">{data.customer.email}</dd>
              <dt>{t('customers.document')}</dt>
              <dd>{data.customer.identification ?? '—'}</dd>
              <dt>{t('orders.date')}</dt>
              <dd>{dateTime(data.customer.created_at, locale, zone)}</dd>
            </dl>
          </div>
          <div class="card">
            <h2>{t('customer.subscriptions')}</h2>
            {data.subscriptions.length === 0 ? (
              <p class="muted">{t('customer.noSubscriptions')}</p>
            ) : (
              <ul class="plain list">
                {data.subscriptions.map((subscription) => (
                  <li key={subscription.id} class="row spread">
                    <Link href={`/subscriptions/${subscription.id}`}>
                      {money(subscription.amount_cents, locale)} / {subscription.interval_count}{' '}
                      {t(`interval.${subscription.interval}` as MessageKey)}
                    </Link>
                    <span class={`badge ${subscription.status}`}>
                      {t(`subStatus.${subscription.status}` as MessageKey)}
                    </span>
                  </li>
                ))}
              </ul>
            )}
          </div>
          <div class="card wide">
            <h2>{t('customer.orders')}</h2>
            <OrderLines orders={data.orders} />
          </div>
        </div>
      )}
    </section>
  );
}

/** Orders as links with their date, status and total. */
export function OrderLines({
  orders,
}: {
  orders: Array<{ id: number; status: string; total_cents: number; created_at: string }>;
}) {
  const { t, locale, session } = useDashboard();
  if (orders.length === 0) return <p class="muted">{t('orders.none')}</p>;
  return (
    <ul class="plain list">
      {orders.map((order) => (
        <li key={order.id} class="row spread">
          <span>
            <Link href={`/orders/${order.id}`}>#{order.id}</Link>{' '}
            <span class="muted">{dateTime(order.created_at, locale, session.account.time_zone)}</span>
          </span>
          <span>
            <span class={`badge ${order.status}`}>{statusLabel(order.status, locale)}</span>{' '}
            {money(order.total_cents, locale)}
          </span>
        </li>
      ))}
    </ul>
  );
}
