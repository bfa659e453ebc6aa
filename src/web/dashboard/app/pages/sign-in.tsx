import { useState } from 'preact/hooks';
import { answer, ApiError, dashboardClient, rememberSession, type Session } from '../client.ts';
import { type Locale, type Translate } from '../i18n.ts';
import { errorText, LanguageSelect } from '../ui.tsx';

export function SignInPage(props: {
  t: Translate;
  locale: Locale;
  onLocale(locale: Locale): void;
  onSignedIn(session: Session): void;
}) {
  const { t } = props;
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [needsCode, setNeedsCode] = useState(false);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const body = { email, password, ...(needsCode && code ? { totp_code: code } : {}) };
      props.onSignedIn(rememberSession(await answer(dashboardClient.POST('/dashboard/session', { body }))));
    } catch (caught) {
      if (caught instanceof ApiError && caught.details.some((detail) => detail.field === 'body/totp_code'))
        setNeedsCode(true);
      setError(errorText(caught));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="auth">
      <form class="card narrow" onSubmit={submit} aria-describedby={error ? 'sign-in-error' : undefined}>
        <h1>{t('signIn.title')}</h1>
        <label>
          {t('signIn.email')}
          <input
            type="email"
            name="email"
            autoComplete="username"
            required
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
        </label>
        <label>
          {t('signIn.password')}
          <input
            type="password"
            name="password"
            autoComplete="current-password"
            required
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </label>
        {needsCode && (
          <label>
            {t('signIn.totp')}
            <input
              name="totp"
              inputMode="numeric"
              autoComplete="one-time-code"
              pattern="[0-9]{6}"
              required
              value={code}
              onInput={(e) => setCode(e.currentTarget.value)}
            />
          </label>
        )}
        {error && (
          <p id="sign-in-error" class="alert error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {t('signIn.submit')}
        </button>
        <LanguageSelect
          className="inline language"
          label="Idioma / Language"
          locale={props.locale}
          onLocale={props.onLocale}
        />
      </form>
    </main>
  );
}
