import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'wouter-preact';
import { answer, dashboardClient, rememberSession, type Session } from '../client.ts';
import type { Translate } from '../i18n.ts';
import { errorText } from '../ui.tsx';

/** /dashboard/link#TOKEN: a one-time sign-in or invite link; the token stays in the fragment, never sent in a URL. */
export function LinkPage(props: { t: Translate; onSignedIn(session: Session): void }) {
  const { t } = props;
  const [, navigate] = useLocation();
  const [token] = useState(() => location.hash.slice(1));
  const [info, setInfo] = useState<{ email: string; needs_password: boolean }>();
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string>();
  useEffect(() => {
    history.replaceState(null, '', location.pathname);
    answer(dashboardClient.POST('/dashboard/links/inspect', { body: { token } })).then(setInfo, () =>
      setError(t('link.invalid')),
    );
  }, []);
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    try {
      const body = info?.needs_password || password ? { token, password } : { token };
      const session = rememberSession(await answer(dashboardClient.POST('/dashboard/links/redeem', { body })));
      navigate('/', { replace: true });
      props.onSignedIn(session);
    } catch (caught) {
      setError(errorText(caught));
    }
  };
  return (
    <main id="main" class="auth">
      <form class="card narrow" onSubmit={submit}>
        <h1>{t('link.title')}</h1>
        {info && <p>{info.email}</p>}
        {info?.needs_password && (
          <label>
            {t('link.choosePassword')}
            <input
              type="password"
              name="new-password"
              autoComplete="new-password"
              minLength={10}
              required
              value={password}
              onInput={(e) => setPassword(e.currentTarget.value)}
            />
          </label>
        )}
        {error && (
          <p class="alert error" role="alert">
            {error}
          </p>
        )}
        {info && <button type="submit">{t('link.continue')}</button>}
      </form>
    </main>
  );
}
