import { useState } from 'preact/hooks';
import { Link, useLocation, useSearch } from 'wouter-preact';
import type { operations } from '../../../../../packages/client/index.ts';
import { answer, dashboardClient, railsQuery } from '../client.ts';
import { useDashboard } from '../context.ts';
import { count, dateTime, money } from '../format.ts';
import { statusLabel } from '../i18n.ts';
import { Loading, PageTitle, useLoad } from '../ui.tsx';

const STATUSES = [
  'pending',
  'waiting_payment',
  'partially_paid',
  'paid',
  'cancelled',
  'partially_refunded',
  'refunded',
  'billed',
];

type OrdersQuery = NonNullable<operations['dashboardListOrders']['parameters']['query']>;

/** The page's URL search as the list's query: the same names, lists written `name[]`. */
function ordersQuery(search: string): OrdersQuery {
  const params = new URLSearchParams(search);
  const text = (name: string) => params.get(name) || undefined;
  const number = (name: string) => (params.get(name) ? Number(params.get(name)) : undefined);
  const list = (name: string) => (params.getAll(`${name}[]`).length ? params.getAll(`${name}[]`) : undefined);
  return {
    q: text('q'),
    status: list('status') as OrdersQuery['status'],
    period_date_filter: text('period_date_filter') as OrdersQuery['period_date_filter'],
    initial_date: text('initial_date'),
    final_date: text('final_date'),
    page: number('page'),
    limit: number('limit'),
    meta: list('meta'),
    company_ids: list('company_ids')?.map(Number),
    cart_page_uuids: list('cart_page_uuids'),
  };
}

/** The filters live in the URL (the same names as GET /orders), so a filtered list can be shared as a link. */
export function OrdersPage() {
  const { t, locale, session, can } = useDashboard();
  const search = useSearch();
  const [, navigate] = useLocation();
  const params = new URLSearchParams(search);
  const [form, setForm] = useState(() => ({
    q: params.get('q') ?? '',
    status: params.get('status[]') ?? '',
    field: params.get('period_date_filter') ?? 'created_at',
    from: params.get('initial_date') ?? '',
    to: params.get('final_date') ?? '',
  }));
  const state = useLoad(
    () =>
      answer(
        dashboardClient.GET('/dashboard/orders', {
          params: { query: ordersQuery(search) },
          querySerializer: railsQuery,
        }),
      ),
    [search],
  );
  const go = (next: URLSearchParams) => navigate(`/orders${next.toString() ? `?${next}` : ''}`);
  const apply = (event: Event) => {
    event.preventDefault();
    const next = new URLSearchParams();
    if (form.q.trim()) next.set('q', form.q.trim());
    if (form.status) next.set('status[]', form.status);
    if (form.from || form.to) next.set('period_date_filter', form.field);
    if (form.from) next.set('initial_date', form.from);
    if (form.to) next.set('final_date', form.to);
    go(next);
  };
  const page = (number: number) => {
    const next = new URLSearchParams(search);
    next.set('page', String(number));
    go(next);
  };
  const exportQuery = (() => {
    const next = new URLSearchParams(search);
    next.delete('page');
    next.delete('limit');
    return next.toString();
  })();
  const meta = state.data?.meta;
  return (
    <section aria-labelledby="page-title">
      <PageTitle>{t('orders.title')}</PageTitle>
      <form class="card filters" onSubmit={apply} aria-label={t('orders.filters')}>
        <label class="grow">
          {t('orders.search')}
          <input
            type="search"
            name="q"
            value={form.q}
            onInput={(e) => setForm({ ...form, q: e.currentTarget.value })}
          />
        </label>
        <label>
          {t('orders.status')}
          <select
            name="status"
            value={form.status}
            onChange={(e) => setForm({ ...form, status: e.currentTarget.value })}
          >
            <option value="">{t('orders.anyStatus')}</option>
            {STATUSES.map((status) => (
              <option key={status} value={status}>
                {statusLabel(status, locale)}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('orders.dateField')}
          <select name="period" value={form.field} onChange={(e) => setForm({ ...form, field: e.currentTarget.value })}>
            <option value="created_at">{t('orders.createdAt')}</option>
            <option value="paid_at">{t('orders.paidAt')}</option>
          </select>
        </label>
        <label>
          {t('orders.from')}
          <input
            type="date"
            name="from"
            value={form.from}
            onInput={(e) => setForm({ ...form, from: e.currentTarget.value })}
          />
        </label>
        <label>
          {t('orders.to')}
          <input
            type="date"
            name="to"
            value={form.to}
            onInput={(e) => setForm({ ...form, to: e.currentTarget.value })}
          />
        </label>
        <div class="buttons">
          <button type="submit">{t('orders.apply')}</button>
          <button
            type="button"
            class="secondary"
            onClick={() => {
              setForm({ q: '', status: '', field: 'created_at', from: '', to: '' });
              go(new URLSearchParams());
            }}
          >
            {t('orders.clear')}
          </button>
          {can('orders.export') && (
            <a
              class="button secondary"
              href={`/api/v1/dashboard/orders.csv${exportQuery ? `?${exportQuery}` : ''}`}
              download
            >
              {t('orders.export')}
            </a>
          )}
        </div>
      </form>
      <Loading state={state} />
      {state.data && (
        <>
          <p class="muted" role="status">
            {t('orders.count')}: {count(meta!.total_count, locale)}
            {meta!.total_count_exact ? '' : '+'}
          </p>
          {state.data.data.length === 0 ? (
            <p>{t('orders.none')}</p>
          ) : (
            <div class="table-wrap" tabIndex={0} role="region" aria-label={t('orders.title')}>
              <table>
                <thead>
                  <tr>
                    <th scope="col">{t('orders.number')}</th>
                    <th scope="col">{t('orders.date')}</th>
                    <th scope="col">{t('orders.customer')}</th>
                    <th scope="col">{t('common.status')}</th>
                    <th scope="col" class="number">
                      {t('orders.total')}
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {state.data.data.map((order) => (
                    <tr key={order.id}>
                      <td>
                        <Link href={`/orders/${order.id}`}>#{order.id}</Link>
                      </td>
                      <td>{dateTime(order.created_at, locale, session.account.time_zone)}</td>
                      <td>{order.customer?.name ?? order.customer?.email ?? '—'}</td>
                      <td>
                        <span class={`badge ${order.status}`}>{statusLabel(order.status, locale)}</span>
                      </td>
                      <td class="number">{money(Math.round(order.total * 100), locale)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {(meta!.current_page > 1 || meta!.has_more) && (
            <nav class="pager" aria-label={t('orders.page')}>
              <button
                type="button"
                class="secondary"
                disabled={meta!.current_page <= 1}
                onClick={() => page(meta!.current_page - 1)}
              >
                {t('orders.previous')}
              </button>
              <span>
                {t('orders.page')} {meta!.current_page}
                {meta!.total_count_exact
                  ? ` ${t('orders.of')} ${Math.max(1, Math.ceil(meta!.total_count / meta!.per_page))}`
                  : ''}
              </span>
              <button
                type="button"
                class="secondary"
                disabled={!meta!.has_more}
                onClick={() => page(meta!.current_page + 1)}
              >
                {t('orders.next')}
              </button>
            </nav>
          )}
        </>
      )}
    </section>
  );
}
