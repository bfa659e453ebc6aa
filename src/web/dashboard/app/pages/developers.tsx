import { useState } from 'preact/hooks';
import { answer, dashboardClient } from '../client.ts';
import { useDashboard } from '../context.ts';
import { dateTime } from '../format.ts';
import { errorText, Loading, PageTitle, ShownOnce, useLoad } from '../ui.tsx';
// Allowed hosts and inbound webhook credentials.
import { AllowedHosts, WebhookCredentials } from './developer-settings.tsx';
import { Deliveries } from './deliveries.tsx';

export function DevelopersPage() {
  const { t } = useDashboard();
  return (
    <section aria-labelledby="page-title">
      <PageTitle>{t('dev.title')}</PageTitle>
      <ApiKeys />
      <Endpoints />
      <AllowedHosts />
      <WebhookCredentials />
    </section>
  );
}

function ApiKeys() {
  const { t, locale, session } = useDashboard();
  const state = useLoad(() => answer(dashboardClient.GET('/dashboard/api_keys')), []);
  const [label, setLabel] = useState('');
  const [grace, setGrace] = useState('86400');
  const [shown, setShown] = useState<string>();
  const [error, setError] = useState<string>();
  const act = async (action: () => Promise<{ api_key: string } | void>) => {
    setError(undefined);
    try {
      const result = await action();
      setShown(result ? result.api_key : undefined);
      state.reload();
    } catch (caught) {
      setError(errorText(caught));
    }
  };
  const zone = session.account.time_zone;
  return (
    <div class="card">
      <h2>{t('dev.keys')}</h2>
      {shown && <ShownOnce label={t('dev.shownOnce')} value={shown} />}
      {error && (
        <p class="alert error" role="alert">
          {error}
        </p>
      )}
      <Loading state={state} />
      {state.data && (
        <ul class="plain list">
          {state.data.data.map((key) => (
            <li key={key.id} class="row spread">
              <span>
                <code>{key.prefix}…</code> {key.label}{' '}
                <span class="muted">
                  {key.revoked_at
                    ? t('dev.revoked')
                    : key.expires_at
                      ? `${t('dev.expires')} ${dateTime(key.expires_at, locale, zone)}`
                      : t('dev.active')}
                </span>
              </span>
              {!key.revoked_at && (
                <button
                  type="button"
                  class="secondary"
                  onClick={() =>
                    act(() =>
                      answer(
                        dashboardClient.DELETE('/dashboard/api_keys/{id}', { params: { path: { id: key.id } } }),
                      ).then(() => undefined),
                    )
                  }
                  aria-label={`${t('dev.revoke')} ${key.prefix}`}
                >
                  {t('dev.revoke')}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          void act(() => answer(dashboardClient.POST('/dashboard/api_keys', { body: { label } })));
        }}
      >
        <label class="grow">
          {t('dev.label')}
          <input name="label" required maxLength={100} value={label} onInput={(e) => setLabel(e.currentTarget.value)} />
        </label>
        <button type="submit">{t('dev.createKey')}</button>
      </form>
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          void act(() =>
            answer(dashboardClient.POST('/dashboard/api_keys/rotate', { body: { grace_seconds: Number(grace) } })),
          );
        }}
      >
        <label class="grow">
          {t('dev.grace')}
          <select name="grace" value={grace} onChange={(e) => setGrace(e.currentTarget.value)}>
            <option value="0">{t('dev.graceNow')}</option>
            <option value="3600">{t('dev.grace1h')}</option>
            <option value="86400">{t('dev.grace24h')}</option>
          </select>
        </label>
        <button type="submit">{t('dev.rotate')}</button>
      </form>
    </div>
  );
}

function Endpoints() {
  const { t } = useDashboard();
  const state = useLoad(() => answer(dashboardClient.GET('/dashboard/notification_endpoints')), []);
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [secret, setSecret] = useState<string>();
  const [error, setError] = useState<string>();
  const [open, setOpen] = useState<string>();
  const act = async (action: () => Promise<{ secret?: string } | unknown>) => {
    setError(undefined);
    try {
      const result = (await action()) as { secret?: string } | undefined;
      setSecret(result?.secret);
      state.reload();
    } catch (caught) {
      setError(errorText(caught));
    }
  };
  return (
    <div class="card">
      <h2>{t('dev.endpoints')}</h2>
      {secret && <ShownOnce label={t('dev.secretShownOnce')} value={secret} />}
      {error && (
        <p class="alert error" role="alert">
          {error}
        </p>
      )}
      <Loading state={state} />
      {state.data && (
        <ul class="plain list">
          {state.data.data.map((endpoint) => (
            <li key={endpoint.id} class="row spread">
              <span class="break">
                <code>{endpoint.url}</code> <span class="muted">{endpoint.enabled ? t('dev.active') : '—'}</span>
              </span>
              <span class="row">
                <button
                  type="button"
                  class="secondary"
                  onClick={() =>
                    act(() =>
                      answer(
                        dashboardClient.PATCH('/dashboard/notification_endpoints/{id}', {
                          params: { path: { id: endpoint.id } },
                          body: { enabled: !endpoint.enabled },
                        }),
                      ),
                    )
                  }
                >
                  {endpoint.enabled ? t('dev.disable') : t('dev.enable')}
                </button>
                <button
                  type="button"
                  class="secondary"
                  onClick={() =>
                    act(() =>
                      answer(
                        dashboardClient.POST('/dashboard/notification_endpoints/{id}/rotate_secret', {
                          params: { path: { id: endpoint.id } },
                          body: { grace_seconds: 86_400 },
                        }),
                      ),
                    )
                  }
                >
                  {t('dev.rotateSecret')}
                </button>
                <button
                  type="button"
                  class="secondary"
                  aria-expanded={open === endpoint.id}
                  onClick={() => setOpen(open === endpoint.id ? undefined : endpoint.id)}
                >
                  {open === endpoint.id ? t('deliveries.hide') : t('deliveries.show')}
                </button>
              </span>
              {open === endpoint.id && <Deliveries endpointId={endpoint.id} />}
            </li>
          ))}
        </ul>
      )}
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          void act(() =>
            answer(
              dashboardClient.POST('/dashboard/notification_endpoints', {
                body: description ? { url, description } : { url },
              }),
            ),
          );
        }}
      >
        <label class="grow">
          {t('dev.url')}
          <input type="url" name="url" required value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
        </label>
        <label class="grow">
          {t('dev.description')}
          <input name="description" value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
        </label>
        <button type="submit">{t('dev.addEndpoint')}</button>
      </form>
    </div>
  );
}
