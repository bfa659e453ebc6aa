import { useState } from 'preact/hooks';
import { answer, dashboardClient, type Answer } from '../client.ts';
import { useDashboard } from '../context.ts';
import { dateTime } from '../format.ts';
import { errorText, Loading, useLoad } from '../ui.tsx';

/** Each gateway's public key and secret status; a new secret is sent once and never shown back. */
type GatewayCredential = Answer<'/dashboard/settings/companies/{company_id}/gateways', 'get'>['data'][number];

export function GatewayCredentials({ companyId }: { companyId: number }) {
  const { t } = useDashboard();
  const state = useLoad(
    () =>
      answer(
        dashboardClient.GET('/dashboard/settings/companies/{company_id}/gateways', {
          params: { path: { company_id: companyId } },
        }),
      ),
    [companyId],
  );
  return (
    <div class="card">
      <h2>{t('settings.gateways')}</h2>
      <Loading state={state} />
      {state.data && (
        <ul class="plain list">
          {state.data.data.map((gateway) => (
            <GatewayRow key={gateway.gateway} companyId={companyId} gateway={gateway} onSaved={state.reload} />
          ))}
        </ul>
      )}
    </div>
  );
}

function GatewayRow(props: { companyId: number; gateway: GatewayCredential; onSaved(): void }) {
  const { t, locale, session } = useDashboard();
  const { gateway } = props;
  const [publicKey, setPublicKey] = useState(gateway.public_key ?? '');
  const [secret, setSecret] = useState('');
  const [enabled, setEnabled] = useState(gateway.configured ? gateway.enabled : true);
  const [error, setError] = useState<string>();
  const id = `gw-${gateway.gateway}`;
  const status = gateway.secret_last4
    ? `${t('settings.secretEnds')} …${gateway.secret_last4}`
    : gateway.configured
      ? t('settings.noSecret')
      : t('settings.notConfigured');
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    try {
      await answer(
        dashboardClient.PATCH('/dashboard/settings/companies/{company_id}/gateways/{gateway}', {
          params: { path: { company_id: props.companyId, gateway: gateway.gateway } },
          body: {
            enabled,
            ...(publicKey.trim() ? { public_key: publicKey.trim() } : {}),
            ...(secret ? { secret_key: secret } : {}),
          },
        }),
      );
      setSecret('');
      props.onSaved();
    } catch (caught) {
      setError(errorText(caught));
    }
  };
  return (
    <li>
      <form class="row" onSubmit={submit} aria-labelledby={id}>
        <p class="grow" id={id}>
          <strong>{gateway.gateway}</strong>{' '}
          <span class="muted" data-testid={`${id}-status`}>
            {status}
            {gateway.secret_set_at &&
              ` · ${t('settings.secretSet')} ${dateTime(gateway.secret_set_at, locale, session.account.time_zone)}`}
          </span>
        </p>
        <label class="grow">
          {t('settings.publicKey')}
          <input
            name="public_key"
            value={publicKey}
            maxLength={1000}
            onInput={(e) => setPublicKey(e.currentTarget.value)}
          />
        </label>
        <label class="grow">
          {t('settings.secretKey')}
          <input
            name="secret_key"
            type="password"
            autoComplete="off"
            value={secret}
            maxLength={1000}
            onInput={(e) => setSecret(e.currentTarget.value)}
          />
        </label>
        <label class="inline check">
          <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} />{' '}
          {t('settings.enabled')}
        </label>
        <button type="submit" aria-label={`${t('common.save')} ${gateway.gateway}`}>
          {t('common.save')}
        </button>
        {error && (
          <p class="alert error" role="alert">
            {error}
          </p>
        )}
      </form>
    </li>
  );
}
