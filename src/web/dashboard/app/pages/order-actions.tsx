import { useState } from 'preact/hooks';
import { answer, dashboardClient } from '../client.ts';
import { useDashboard } from '../context.ts';
import { errorText } from '../ui.tsx';

const CANCELLABLE = ['pending', 'waiting_payment'];

type Message = { kind: 'error' | 'success'; text: string };

/** Copy the charge link, resend the order's notification, cancel it while unpaid (with a confirmation step). */
export function OrderActions(props: { orderId: number; status: string; link?: string; onDone(): void }) {
  const { t } = useDashboard();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<Message>();
  const path = { params: { path: { id: props.orderId } } };
  const run = async (action: () => Promise<string>) => {
    if (busy) return;
    setBusy(true);
    try {
      setMessage({ kind: 'success', text: await action() });
    } catch (error) {
      setMessage({ kind: 'error', text: errorText(error) });
    } finally {
      setBusy(false);
    }
  };
  const copy = () =>
    run(async () => {
      await navigator.clipboard.writeText(props.link!);
      return t('orderActions.linkCopied');
    });
  const resend = () =>
    run(async () => {
      const sent = await answer(dashboardClient.POST('/dashboard/orders/{id}/resend_notification', path));
      props.onDone();
      return `${t('orderActions.resent')}: ${sent.event_type}`;
    });
  const cancel = () =>
    run(async () => {
      await answer(dashboardClient.POST('/dashboard/orders/{id}/cancel', path));
      setConfirming(false);
      props.onDone();
      return t('orderActions.cancelled');
    });
  return (
    <div class="card wide">
      <h2>{t('orderActions.title')}</h2>
      <div class="row">
        {props.link && (
          <button type="button" class="secondary" onClick={copy}>
            {t('orderActions.copyLink')}
          </button>
        )}
        <button type="button" class="secondary" disabled={busy} onClick={resend}>
          {t('orderActions.resend')}
        </button>
        {CANCELLABLE.includes(props.status) && !confirming && (
          <button type="button" class="danger" onClick={() => setConfirming(true)}>
            {t('orderActions.cancel')}
          </button>
        )}
      </div>
      {confirming && (
        <div class="confirm" role="alertdialog" aria-labelledby="cancel-order-text">
          <p id="cancel-order-text">{t('orderActions.cancelConfirm')}</p>
          <div class="row">
            <button type="button" class="danger" disabled={busy} onClick={cancel}>
              {t('orderActions.cancelConfirmButton')}
            </button>
            <button type="button" class="secondary" disabled={busy} onClick={() => setConfirming(false)}>
              {t('orderActions.keep')}
            </button>
          </div>
        </div>
      )}
      {message && (
        <p
          class={`alert ${message.kind}`}
          role={message.kind === 'error' ? 'alert' : 'status'}
          data-testid="order-action-message"
        >
          {message.text}
        </p>
      )}
    </div>
  );
}
