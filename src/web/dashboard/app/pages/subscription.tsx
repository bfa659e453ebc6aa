import { useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { answer, dashboardClient } from '../client.ts';
import { useDashboard } from '../context.ts';
import { dateTime, money } from '../format.ts';
import type { MessageKey } from '../i18n.ts';
import { errorText, Loading, PageTitle, useLoad } from '../ui.tsx';
import { OrderLines } from './customer.tsx';

/** A subscription: status, next renewal, renewal orders (paid ones and failed attempts) and cancel with confirmation. */
export function SubscriptionPage({ id }: { id: string }) {
  const { t, locale, session, can } = useDashboard();
  const state = useLoad(
    () => answer(dashboardClient.GET('/dashboard/subscriptions/{id}', { params: { path: { id } } })),
    [id],
  );
  const data = state.data;
  const zone = session.account.time_zone;
  const when = (iso: string | null) => (iso ? dateTime(iso, locale, zone) : '—');
  return (
    <section aria-labelledby="page-title">
      <PageTitle>{t('subscription.title')}</PageTitle>
      <Loading state={state} />
      {data && (
        <div class="grid">
          <div class="card">
            <p>
              <span class={`badge ${data.subscription.status}`} data-testid="subscription-status">
                {t(`subStatus.${data.subscription.status}` as MessageKey)}
              </span>
            </p>
            <dl class="pairs">
              <dt>{t('order.customer')}</dt>
              <dd>
                <Link href={`/customers/${data.customer.id}`}>{data.customer.name}</Link>
              </dd>
              <dt>{t('subscription.amount')}</dt>
              <dd>{money(data.subscription.amount_cents, locale)}</dd>
              <dt>{t('subscription.every')}</dt>
              <dd>
                {data.subscription.interval_count} {t(`interval.${data.subscription.interval}` as MessageKey)}
              </dd>
              <dt>{t('subscription.period')}</dt>
              <dd>
                {when(data.subscription.current_period_start)} – {when(data.subscription.current_period_end)}
              </dd>
              <dt>{t('subscription.nextRenewal')}</dt>
              <dd data-testid="next-renewal">{when(data.subscription.next_charge_at)}</dd>
              <dt>{t('subscription.failedAttempts')}</dt>
              <dd>{data.subscription.failed_attempts}</dd>
              {data.subscription.cancelled_at && (
                <>
                  <dt>{t('subscription.cancelledAt')}</dt>
                  <dd>{when(data.subscription.cancelled_at)}</dd>
                </>
              )}
            </dl>
            {can('subscriptions.cancel') && data.subscription.status !== 'cancelled' && (
              <CancelSubscription id={id} onDone={state.reload} />
            )}
          </div>
          <div class="card">
            <h2>{t('subscription.renewals')}</h2>
            <OrderLines orders={data.renewals} />
          </div>
        </div>
      )}
    </section>
  );
}

function CancelSubscription({ id, onDone }: { id: string; onDone(): void }) {
  const { t } = useDashboard();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ kind: 'error' | 'success'; text: string }>();
  const cancel = async () => {
    if (busy) return;
    setBusy(true);
    try {
      await answer(dashboardClient.POST('/dashboard/subscriptions/{id}/cancel', { params: { path: { id } } }));
      setMessage({ kind: 'success', text: t('subscription.cancelled') });
      setConfirming(false);
      onDone();
    } catch (error) {
      setMessage({ kind: 'error', text: errorText(error) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="refund">
      {!confirming ? (
        <button type="button" class="danger" onClick={() => setConfirming(true)}>
          {t('subscription.cancel')}
        </button>
      ) : (
        <div class="confirm" role="alertdialog" aria-labelledby="cancel-subscription-text">
          <p id="cancel-subscription-text">{t('subscription.cancelConfirm')}</p>
          <div class="row">
            <button type="button" class="danger" disabled={busy} onClick={cancel}>
              {t('subscription.cancelConfirmButton')}
            </button>
            <button type="button" class="secondary" disabled={busy} onClick={() => setConfirming(false)}>
              {t('subscription.keep')}
            </button>
          </div>
        </div>
      )}
      {message && (
        <p class={`alert ${message.kind}`} role={message.kind === 'error' ? 'alert' : 'status'}>
          {message.text}
        </p>
      )}
    </div>
  );
}
