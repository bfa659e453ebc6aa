import { useState } from 'preact/hooks';
import { answer, dashboardClient, type Answer } from '../client.ts';
import { useDashboard } from '../context.ts';
import { dateTime, money, parseReais } from '../format.ts';
import { statusLabel } from '../i18n.ts';
import { errorText, Loading, PageTitle, useLoad } from '../ui.tsx';
import { OrderActions } from './order-actions.tsx';

type OrderData = Answer<'/dashboard/orders/{id}', 'get'>;

export function OrderPage({ id }: { id: string }) {
  const { t, locale, session, can } = useDashboard();
  const state = useLoad(
    () => answer(dashboardClient.GET('/dashboard/orders/{id}', { params: { path: { id: Number(id) } } })),
    [id],
  );
  const data = state.data;
  const zone = session.account.time_zone;
  return (
    <section aria-labelledby="page-title">
      <PageTitle>{`${t('order.title')} #${id}`}</PageTitle>
      <Loading state={state} />
      {data && (
        <div class="grid">
          <div class="card">
            <p>
              <span class={`badge ${data.order.status}`} data-testid="order-status">
                {statusLabel(data.order.status, locale)}
              </span>
            </p>
            <dl class="pairs">
              <dt>{t('orders.total')}</dt>
              <dd>{money(data.totals.total_cents, locale)}</dd>
              <dt>{t('order.paid')}</dt>
              <dd>{money(data.totals.paid_cents, locale)}</dd>
              <dt>{t('order.refunded')}</dt>
              <dd data-testid="order-refunded">{money(data.totals.refunded_cents, locale)}</dd>
              <dt>{t('orders.date')}</dt>
              <dd>{dateTime(data.order.created_at, locale, zone)}</dd>
              {data.order.link && (
                <>
                  <dt>{t('order.chargeLink')}</dt>
                  <dd>
                    <a href={data.order.link}>{data.order.link}</a>
                  </dd>
                </>
              )}
            </dl>
          </div>
          <div class="card">
            <h2>{t('order.customer')}</h2>
            <p>{data.order.customer?.name ?? '—'}</p>
            <p class="muted">{data.order.customer?.email}</p>
          </div>
          {can('orders.manage') && (
            <OrderActions
              orderId={Number(id)}
              status={data.order.status}
              {...(data.order.link ? { link: data.order.link } : {})}
              onDone={state.reload}
            />
          )}
          <div class="card wide">
            <h2>{t('order.items')}</h2>
            <ul class="plain">
              {data.order.items.map((item, index) => (
                <li key={index}>
                  {item.quantity} × {item.product_name} — {money(Math.round(item.total * 100), locale)}
                </li>
              ))}
            </ul>
          </div>
          <div class="card wide">
            <h2>{t('order.payments')}</h2>
            {data.payments.map((payment) => (
              <div key={payment.id} class="payment">
                <dl class="pairs">
                  <dt>{t('order.method')}</dt>
                  <dd>
                    {payment.method} · {payment.gateway} · {statusLabel(payment.status, locale)}
                  </dd>
                  <dt>{t('order.gatewayId')}</dt>
                  <dd>
                    <code>{payment.gateway_id ?? '—'}</code>
                  </dd>
                  <dt>{t('order.installments')}</dt>
                  <dd>{payment.installments}</dd>
                  <dt>{t('order.amount')}</dt>
                  <dd>{money(payment.amount_cents, locale)}</dd>
                  <dt>{t('order.refundable')}</dt>
                  <dd>{money(payment.refundable_cents, locale)}</dd>
                </dl>
                {can('refunds.create') && payment.refundable_cents > 0 && (
                  <RefundForm paymentId={payment.id} refundable={payment.refundable_cents} onDone={state.reload} />
                )}
              </div>
            ))}
          </div>
          <div class="card wide">
            <h2>{t('order.timeline')}</h2>
            <Timeline data={data} />
          </div>
        </div>
      )}
    </section>
  );
}

/** Events of the order and the dashboard users' acts on it, oldest first. */
function Timeline({ data }: { data: OrderData }) {
  const { t, locale, session } = useDashboard();
  const entries = [
    ...data.events.map((event) => ({
      at: event.created_at,
      text: `${event.type}${event.to_status ? ` → ${statusLabel(event.to_status, locale)}` : ''}`,
      by: event.cause,
    })),
    ...data.actions.map((action) => ({
      at: action.created_at,
      text: `${action.action}${typeof action.data.amount_cents === 'number' ? ` ${money(action.data.amount_cents, locale)}` : ''}`,
      by: action.actor,
    })),
  ].sort((a, b) => a.at.localeCompare(b.at));
  return (
    <ol class="timeline" data-testid="timeline">
      {entries.map((entry, index) => (
        <li key={index}>
          <time dateTime={entry.at}>{dateTime(entry.at, locale, session.account.time_zone)}</time>
          <span>{entry.text}</span>
          <span class="muted">
            {t('order.by')} {entry.by}
          </span>
        </li>
      ))}
    </ol>
  );
}

/** Amount, then a confirmation step; one idempotency key per submission, so a double click refunds once. */
function RefundForm(props: { paymentId: number; refundable: number; onDone(): void }) {
  const { t, locale } = useDashboard();
  const [amount, setAmount] = useState('');
  const [pending, setPending] = useState<{ cents: number; key: string }>();
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ kind: 'error' | 'success'; text: string }>();
  const review = (event: Event) => {
    event.preventDefault();
    const cents = parseReais(amount);
    if (cents === undefined || cents < 1 || cents > props.refundable) {
      setMessage({ kind: 'error', text: t('order.amountInvalid') });
      return;
    }
    setMessage(undefined);
    setPending({ cents, key: crypto.randomUUID() });
  };
  const confirm = async () => {
    if (!pending || busy) return;
    setBusy(true);
    try {
      await answer(
        dashboardClient.POST('/dashboard/payments/{id}/refund', {
          params: { path: { id: props.paymentId } },
          body: { amount_cents: pending.cents },
          headers: { 'idempotency-key': pending.key },
        }),
      );
      setMessage({ kind: 'success', text: t('order.refundDone') });
      setPending(undefined);
      setAmount('');
      props.onDone();
    } catch (error) {
      setMessage({ kind: 'error', text: errorText(error) });
    } finally {
      setBusy(false);
    }
  };
  const inputId = `refund-${props.paymentId}`;
  return (
    <form class="refund" onSubmit={review}>
      {!pending ? (
        <>
          <label for={inputId}>{t('order.refundAmount')}</label>
          <div class="row">
            <input
              id={inputId}
              name="amount"
              inputMode="decimal"
              required
              value={amount}
              placeholder={money(props.refundable, locale)}
              onInput={(e) => setAmount(e.currentTarget.value)}
            />
            <button type="submit">{t('order.refundReview')}</button>
          </div>
        </>
      ) : (
        <div class="confirm" role="alertdialog" aria-labelledby={`${inputId}-confirm`}>
          <p id={`${inputId}-confirm`}>
            {t('order.refundConfirm')} <strong>{money(pending.cents, locale)}</strong>?
          </p>
          <div class="row">
            <button type="button" class="danger" disabled={busy} onClick={confirm}>
              {t('order.refundConfirmButton')}
            </button>
            <button type="button" class="secondary" disabled={busy} onClick={() => setPending(undefined)}>
              {t('order.cancel')}
            </button>
          </div>
        </div>
      )}
      {message && (
        <p class={`alert ${message.kind}`} role={message.kind === 'error' ? 'alert' : 'status'}>
          {message.text}
        </p>
      )}
    </form>
  );
}
