import { useState } from 'preact/hooks';
import { answer, dashboardClient } from '../client.ts';
import { useDashboard } from '../context.ts';
import { dateTime } from '../format.ts';
import type { MessageKey } from '../i18n.ts';
import { errorText, Loading, useLoad } from '../ui.tsx';

/** An endpoint's deliveries, newest first: event, answer, attempts, next attempt, what was sent; each can be sent again. */
export function Deliveries({ endpointId }: { endpointId: string }) {
  const { t, locale, session } = useDashboard();
  // The cursors of the pages opened, newest page first: "older" pushes the page's next cursor, "newer" pops it.
  const [trail, setTrail] = useState<string[]>([]);
  const cursor = trail.at(-1);
  const state = useLoad(
    () =>
      answer(
        dashboardClient.GET('/dashboard/notification_endpoints/{id}/deliveries', {
          params: { path: { id: endpointId }, query: cursor ? { starting_after: cursor } : {} },
        }),
      ),
    [endpointId, cursor],
  );
  const [message, setMessage] = useState<{ kind: 'error' | 'success'; text: string }>();
  const redeliver = async (id: string) => {
    try {
      await answer(
        dashboardClient.POST('/dashboard/notification_deliveries/{id}/redeliver', { params: { path: { id } } }),
      );
      setMessage({ kind: 'success', text: t('deliveries.redelivered') });
      state.reload();
    } catch (error) {
      setMessage({ kind: 'error', text: errorText(error) });
    }
  };
  const zone = session.account.time_zone;
  return (
    <div class="deliveries" data-testid="deliveries">
      <div class="row spread">
        <h3>{t('deliveries.title')}</h3>
        <button type="button" class="secondary" onClick={state.reload}>
          {t('deliveries.refresh')}
        </button>
      </div>
      {message && (
        <p class={`alert ${message.kind}`} role={message.kind === 'error' ? 'alert' : 'status'}>
          {message.text}
        </p>
      )}
      <Loading state={state} />
      {state.data && state.data.data.length === 0 && <p class="muted">{t('deliveries.none')}</p>}
      <ul class="plain list">
        {state.data?.data.map((delivery) => (
          <li key={delivery.id} class="delivery">
            <div class="row spread">
              <span>
                <strong>{delivery.event_type}</strong>{' '}
                <span class={`badge ${delivery.status}`} data-testid="delivery-status">
                  {t(`deliveryStatus.${delivery.status}` as MessageKey)}
                  {delivery.last_status_code !== null ? ` · HTTP ${delivery.last_status_code}` : ''}
                </span>
              </span>
              <button
                type="button"
                class="secondary"
                onClick={() => redeliver(delivery.id)}
                aria-label={`${t('deliveries.redeliver')} ${delivery.event_type} ${delivery.id}`}
              >
                {t('deliveries.redeliver')}
              </button>
            </div>
            <dl class="pairs">
              <dt>{t('orders.date')}</dt>
              <dd>{dateTime(delivery.created_at, locale, zone)}</dd>
              <dt>{t('deliveries.attempts')}</dt>
              <dd>{delivery.attempts}</dd>
              <dt>{t('deliveries.nextAttempt')}</dt>
              <dd>{delivery.next_attempt_at ? dateTime(delivery.next_attempt_at, locale, zone) : '—'}</dd>
              {delivery.last_error && (
                <>
                  <dt>{t('deliveries.response')}</dt>
                  <dd class="break">{delivery.last_error}</dd>
                </>
              )}
            </dl>
            <details>
              <summary>{t('deliveries.request')}</summary>
              <pre class="excerpt">{delivery.request_body}</pre>
            </details>
            {delivery.response_excerpt && (
              <details>
                <summary>{t('deliveries.responseBody')}</summary>
                <pre class="excerpt" data-testid="response-excerpt">
                  {delivery.response_excerpt}
                </pre>
              </details>
            )}
          </li>
        ))}
      </ul>
      {(trail.length > 0 || state.data?.meta.has_more) && (
        <nav class="pager" aria-label={t('deliveries.pages')}>
          <button
            type="button"
            class="secondary"
            disabled={trail.length === 0}
            onClick={() => setTrail(trail.slice(0, -1))}
          >
            {t('deliveries.newer')}
          </button>
          <span>
            {t('orders.page')} {trail.length + 1}
          </span>
          <button
            type="button"
            class="secondary"
            disabled={!state.data?.meta.next_cursor}
            onClick={() => setTrail([...trail, state.data!.meta.next_cursor!])}
          >
            {t('deliveries.older')}
          </button>
        </nav>
      )}
    </div>
  );
}
