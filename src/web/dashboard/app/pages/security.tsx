import QRCode from 'qrcode';
import { useState } from 'preact/hooks';
import { answer, dashboardClient } from '../client.ts';
import { useDashboard } from '../context.ts';
import { errorText, PageTitle } from '../ui.tsx';

type Message = { kind: 'error' | 'success'; text: string };

/** The signed-in user's security: turn the authenticator (TOTP) on or off, sign out everywhere. */
export function SecurityPage(props: { onSignedOut(): void; onTotpChanged(enabled: boolean): void }) {
  const { t, session } = useDashboard();
  return (
    <section aria-labelledby="page-title">
      <PageTitle>{t('security.title')}</PageTitle>
      <div class="card narrow">
        <h2>{t('security.totp')}</h2>
        <p data-testid="totp-state">{session.user.totp_enabled ? t('security.totpOn') : t('security.totpOff')}</p>
        {session.user.totp_enabled ? (
          <DisableTotp onDone={() => props.onTotpChanged(false)} />
        ) : (
          <EnableTotp onDone={() => props.onTotpChanged(true)} />
        )}
      </div>
      <div class="card narrow">
        <h2>{t('security.sessions')}</h2>
        <p>{t('security.sessionsText')}</p>
        <button
          type="button"
          class="danger"
          onClick={async () => {
            await answer(dashboardClient.POST('/dashboard/sessions/end_all')).catch(() => undefined);
            props.onSignedOut();
          }}
        >
          {t('nav.signOutEverywhere')}
        </button>
      </div>
    </section>
  );
}

function Feedback({ message }: { message: Message | undefined }) {
  if (!message) return null;
  return (
    <p class={`alert ${message.kind}`} role={message.kind === 'error' ? 'alert' : 'status'}>
      {message.text}
    </p>
  );
}

/** A new secret as a QR code of its otpauth URI and as text, then a code from the app turns it on. */
function EnableTotp({ onDone }: { onDone(): void }) {
  const { t } = useDashboard();
  const [setup, setSetup] = useState<{ secret: string; qr: string }>();
  const [code, setCode] = useState('');
  const [message, setMessage] = useState<Message>();
  const start = async () => {
    setMessage(undefined);
    try {
      const started = await answer(dashboardClient.POST('/dashboard/totp/setup'));
      setSetup({ secret: started.secret, qr: await QRCode.toDataURL(started.otpauth_uri, { margin: 1, width: 192 }) });
    } catch (error) {
      setMessage({ kind: 'error', text: errorText(error) });
    }
  };
  const confirm = async (event: Event) => {
    event.preventDefault();
    try {
      await answer(dashboardClient.POST('/dashboard/totp/enable', { body: { code: code.trim() } }));
      setMessage({ kind: 'success', text: t('security.enabled') });
      onDone();
    } catch (error) {
      setMessage({ kind: 'error', text: errorText(error) });
    }
  };
  return (
    <>
      <Feedback message={message} />
      {!setup ? (
        <button type="button" onClick={start}>
          {t('security.start')}
        </button>
      ) : (
        <form onSubmit={confirm}>
          <p>{t('security.scan')}</p>
          <img class="qr" src={setup.qr} alt={t('security.qr')} width={192} height={192} />
          <p>
            {t('security.secret')}:{' '}
            <code class="secret" data-testid="totp-secret">
              {setup.secret}
            </code>
          </p>
          <label>
            {t('security.code')}
            <input
              name="code"
              inputMode="numeric"
              autoComplete="one-time-code"
              pattern="[0-9]{6}"
              maxLength={6}
              required
              value={code}
              onInput={(e) => setCode(e.currentTarget.value)}
            />
          </label>
          <button type="submit">{t('security.confirm')}</button>
        </form>
      )}
    </>
  );
}

function DisableTotp({ onDone }: { onDone(): void }) {
  const { t } = useDashboard();
  const [password, setPassword] = useState('');
  const [message, setMessage] = useState<Message>();
  const disable = async (event: Event) => {
    event.preventDefault();
    try {
      await answer(dashboardClient.POST('/dashboard/totp/disable', { body: { password } }));
      setMessage({ kind: 'success', text: t('security.disabled') });
      onDone();
    } catch (error) {
      setMessage({ kind: 'error', text: errorText(error) });
    }
  };
  return (
    <form onSubmit={disable}>
      <Feedback message={message} />
      <label>
        {t('security.password')}
        <input
          type="password"
          name="password"
          autoComplete="current-password"
          required
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
      </label>
      <button type="submit" class="danger">
        {t('security.disable')}
      </button>
    </form>
  );
}
