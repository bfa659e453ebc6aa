import { useEffect, useState } from 'preact/hooks';
import type { paths } from '../../../../../packages/client/index.ts';
import { answer, dashboardClient, type Answer } from '../client.ts';
import { useDashboard } from '../context.ts';
import { dateTime } from '../format.ts';
import type { MessageKey } from '../i18n.ts';
import { errorText, Loading, ShownOnce, useLoad } from '../ui.tsx';

/** The account's allowed hosts, one a line, checked by the service with the merchant file's rules. */
export function AllowedHosts() {
  const { t } = useDashboard();
  const state = useLoad(() => answer(dashboardClient.GET('/dashboard/allowed_hosts')), []);
  const [text, setText] = useState('');
  const [message, setMessage] = useState<{ ok: boolean; text: string }>();
  useEffect(() => {
    if (state.data) setText(state.data.allowed_hosts.join('\n'));
  }, [state.data]);
  const submit = async (event: Event) => {
    event.preventDefault();
    setMessage(undefined);
    try {
      const hosts = text
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean);
      await answer(dashboardClient.PUT('/dashboard/allowed_hosts', { body: { allowed_hosts: hosts } }));
      setMessage({ ok: true, text: t('settings.saved') });
      state.reload();
    } catch (caught) {
      setMessage({ ok: false, text: errorText(caught) });
    }
  };
  return (
    <div class="card">
      <h2 id="allowed-hosts">{t('dev.allowedHosts')}</h2>
      <Loading state={state} />
      <form onSubmit={submit} aria-labelledby="allowed-hosts">
        <label>
          {t('dev.allowedHostsHelp')}
          <textarea name="allowed_hosts" rows={4} value={text} onInput={(e) => setText(e.currentTarget.value)} />
        </label>
        {message && (
          <p class={`alert ${message.ok ? 'success' : 'error'}`} role={message.ok ? 'status' : 'alert'}>
            {message.text}
          </p>
        )}
        <button type="submit">{t('common.save')}</button>
      </form>
    </div>
  );
}

type WebhookCredential = Answer<'/dashboard/webhook_credentials', 'get'>['data'][number];
type RotateReceiver = NonNullable<
  paths['/dashboard/webhook_credentials/{company_id}/{receiver}/rotate']['post']
>['parameters']['path']['receiver'];
type RotatedWebhookCredential = Answer<'/dashboard/webhook_credentials/{company_id}/{receiver}/rotate', 'post'>;

const AUTH_LABEL: Record<WebhookCredential['auth'], MessageKey> = {
  basic: 'dev.authBasic',
  signature: 'dev.authSignature',
  topic: 'dev.authTopic',
};

/** Each company's inbound receivers: the URL to paste, the credential's status and its rotation. */
export function WebhookCredentials() {
  const { t } = useDashboard();
  const state = useLoad(() => answer(dashboardClient.GET('/dashboard/webhook_credentials')), []);
  const [rotated, setRotated] = useState<RotatedWebhookCredential>();
  const [error, setError] = useState<string>();
  const rotate = async (credential: WebhookCredential, keepPrevious: boolean) => {
    setError(undefined);
    try {
      setRotated(
        await answer(
          dashboardClient.POST('/dashboard/webhook_credentials/{company_id}/{receiver}/rotate', {
            params: {
              path: {
                company_id: credential.company_id,
                receiver: credential.receiver as RotateReceiver,
              },
            },
            body: { keep_previous: keepPrevious },
          }),
        ),
      );
      state.reload();
    } catch (caught) {
      setError(errorText(caught));
    }
  };
  const companies = [...new Set(state.data?.data.map((row) => row.company_name))];
  return (
    <div class="card">
      <h2>{t('dev.webhooks')}</h2>
      {rotated && (
        <>
          {rotated.username && (
            <p>
              {t('dev.username')}: <code>{rotated.username}</code>
            </p>
          )}
          <ShownOnce label={t('dev.newSecretShownOnce')} value={rotated.secret} />
        </>
      )}
      {error && (
        <p class="alert error" role="alert">
          {error}
        </p>
      )}
      <Loading state={state} />
      {companies.map((company) => (
        <div key={company}>
          {companies.length > 1 && <h3>{company}</h3>}
          <ul class="plain list">
            {state
              .data!.data.filter((row) => row.company_name === company)
              .map((row) => (
                <CredentialRow key={`${row.company_id}-${row.receiver}`} credential={row} onRotate={rotate} />
              ))}
          </ul>
        </div>
      ))}
    </div>
  );
}

function CredentialRow(props: {
  credential: WebhookCredential;
  onRotate(row: WebhookCredential, keep: boolean): void;
}) {
  const { t, locale, session } = useDashboard();
  const row = props.credential;
  const [keepPrevious, setKeepPrevious] = useState(true);
  const id = `wh-${row.company_id}-${row.receiver}`;
  return (
    <li class="webhook" aria-labelledby={id}>
      <p id={id}>
        <strong>{row.receiver}</strong> <span class="muted">{t(AUTH_LABEL[row.auth])}</span>
      </p>
      <p class="break">
        <span class="muted">{t('dev.webhookUrl')}:</span> <code>{row.url}</code>
      </p>
      <p class="muted" data-testid={`${id}-status`}>
        {row.configured ? t('dev.configured') : t('dev.notConfigured')}
        {row.username && ` · ${t('dev.username')} ${row.username}`}
        {row.set_at && ` · ${t('dev.setAt')} ${dateTime(row.set_at, locale, session.account.time_zone)}`}
        {row.previous_secret_accepted && ` · ${t('dev.previousAccepted')}`}
      </p>
      {row.rotatable && (
        <div class="row">
          {row.grace === 'previous_until_next_rotation' ? (
            <label class="inline check">
              <input
                type="checkbox"
                checked={keepPrevious}
                onChange={(e) => setKeepPrevious(e.currentTarget.checked)}
              />{' '}
              {t('dev.keepPrevious')}
            </label>
          ) : (
            <span class="muted">{t('dev.noGrace')}</span>
          )}
          <button
            type="button"
            class="secondary"
            aria-label={`${t('dev.rotateCredential')}: ${row.receiver}`}
            onClick={() => props.onRotate(row, keepPrevious)}
          >
            {t('dev.rotateCredential')}
          </button>
        </div>
      )}
    </li>
  );
}
