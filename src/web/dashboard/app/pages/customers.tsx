import { useState } from 'preact/hooks';
import { Link, useLocation, useSearch } from 'wouter-preact';
import { answer, dashboardClient } from '../client.ts';
import { useDashboard } from '../context.ts';
import { dateTime } from '../format.ts';
import { Loading, PageTitle, useLoad } from '../ui.tsx';

/** Customers searched by name, e-mail or document; the search and the page live in the URL. */
export function CustomersPage() {
  const { t, locale, session } = useDashboard();
  const search = useSearch();
  const [, navigate] = useLocation();
  const params = new URLSearchParams(search);
  const q = params.get('q') ?? '';
  const page = Number(params.get('page') ?? '1') || 1;
  const [text, setText] = useState(q);
  const state = useLoad(
    () => answer(dashboardClient.GET('/dashboard/customers', { params: { query: { ...(q ? { q } : {}), page } } })),
    [q, page],
  );
  const go = (nextQ: string, nextPage: number) => {
    const next = new URLSearchParams();
    if (nextQ) next.set('q', nextQ);
    if (nextPage > 1) next.set('page', String(nextPage));
    navigate(`/customers${next.toString() ? `?${next}` : ''}`);
  };
  const meta = state.data?.meta;
  return (
    <section aria-labelledby="page-title">
      <PageTitle>{t('customers.title')}</PageTitle>
      <form
        class="card filters"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          go(text.trim(), 1);
        }}
      >
        <label class="grow">
          {t('customers.search')}
          <input type="search" name="q" value={text} onInput={(e) => setText(e.currentTarget.value)} />
        </label>
        <div class="buttons">
          <button type="submit">{t('orders.apply')}</button>
        </div>
      </form>
      <Loading state={state} />
      {state.data && meta && (
        <>
          <p class="muted" role="status">
            {t('customers.count')}: {meta.total_count}
          </p>
          {state.data.data.length === 0 ? (
            <p>{t('customers.none')}</p>
          ) : (
            <div class="table-wrap" tabIndex={0} role="region" aria-label={t('customers.title')}>
              <table>
                <thead>
                  <tr>
                    <th scope="col">{t('customers.name')}</th>
                    <th scope="col">{t('customers.email')}</th>
                    <th scope="col">{t('customers.document')}</th>
                    <th scope="col">{t('orders.date')}</th>
                  </tr>
                </thead>
                <tbody>
                  {state.data.data.map((customer) => (
                    <tr key={customer.id}>
                      <td>
                        <Link href={`/customers/${customer.id}`}>{customer.name}</Link>
                      </td>
                      <td class="break">{customer.email}</td>
                      <td>{customer.identification ?? '—'}</td>
                      <td>{dateTime(customer.created_at, locale, session.account.time_zone)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {meta.total_pages > 1 && (
            <nav class="pager" aria-label={t('orders.page')}>
              <button type="button" class="secondary" disabled={page <= 1} onClick={() => go(q, page - 1)}>
                {t('orders.previous')}
              </button>
              <span>
                {t('orders.page')} {meta.current_page} {t('orders.of')} {meta.total_pages}
              </span>
              <button
                type="button"
                class="secondary"
                disabled={page >= meta.total_pages}
                onClick={() => go(q, page + 1)}
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
