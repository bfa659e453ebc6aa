import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { Redirect, Route, Router, Switch, useLocation } from 'wouter-preact';
import { answer, dashboardClient, rememberSession, type Session } from './client.ts';
import { Dashboard } from './context.ts';
import { LOCALES, translator, type Locale } from './i18n.ts';
import { Layout } from './layout.tsx';
import { AuditPage } from './pages/audit.tsx';
import { DevelopersPage } from './pages/developers.tsx';
import { HomePage } from './pages/home.tsx';
import { LinkPage } from './pages/link.tsx';
import { OrderPage } from './pages/order.tsx';
import { OrdersPage } from './pages/orders.tsx';
import { SignInPage } from './pages/sign-in.tsx';
import { UsersPage } from './pages/users.tsx';
// Settings.
import { SettingsPage } from './pages/settings.tsx';
import { CustomerPage } from './pages/customer.tsx';
import { CustomersPage } from './pages/customers.tsx';
import { SecurityPage } from './pages/security.tsx';
import { SubscriptionPage } from './pages/subscription.tsx';

const LOCALE_KEY = 'dashboard.locale';

function initialLocale(): Locale {
  const stored = localStorage.getItem(LOCALE_KEY);
  if (stored && (LOCALES as string[]).includes(stored)) return stored as Locale;
  return navigator.language.toLowerCase().startsWith('en') ? 'en' : 'pt-BR';
}

function App() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [locale, setLocale] = useState<Locale>(initialLocale);
  const [location] = useLocation();
  useEffect(() => {
    // Signed out (401) or unreachable, the sign-in page is shown.
    answer(dashboardClient.GET('/dashboard/session')).then(
      (session) => setSession(rememberSession(session)),
      () => setSession(null),
    );
  }, []);
  useEffect(() => {
    document.documentElement.lang = locale;
    localStorage.setItem(LOCALE_KEY, locale);
  }, [locale]);
  const t = useMemo(() => translator(locale), [locale]);
  const changeLocale = (next: Locale) => setLocale(next);

  if (session === undefined) return <p role="status">{t('common.loading')}</p>;
  if (location === '/link') return <LinkPage t={t} onSignedIn={setSession} />;
  if (!session) return <SignInPage t={t} locale={locale} onLocale={changeLocale} onSignedIn={setSession} />;
  const can = (permission: string) => session.permissions.includes(permission);
  return (
    <Dashboard.Provider value={{ session, locale, t, can }}>
      <Layout onLocale={changeLocale} onSignedOut={() => setSession(null)}>
        <Switch>
          <Route path="/" component={HomePage} />
          <Route path="/orders" component={OrdersPage} />
          <Route path="/orders/:id">{(params) => <OrderPage id={params.id} />}</Route>
          {can('developers.manage') && <Route path="/developers" component={DevelopersPage} />}
          {can('users.manage') && <Route path="/users" component={UsersPage} />}
          {can('audit.read') && <Route path="/audit" component={AuditPage} />}
          {can('settings.read') && <Route path="/settings" component={SettingsPage} />}
          <Route path="/customers" component={CustomersPage} />
          <Route path="/customers/:id">{(params) => <CustomerPage id={params.id} />}</Route>
          <Route path="/subscriptions/:id">{(params) => <SubscriptionPage id={params.id} />}</Route>
          <Route path="/security">
            <SecurityPage
              onSignedOut={() => setSession(null)}
              onTotpChanged={(enabled) => setSession({ ...session, user: { ...session.user, totp_enabled: enabled } })}
            />
          </Route>
          <Route>
            <Redirect to="/" />
          </Route>
        </Switch>
      </Layout>
    </Dashboard.Provider>
  );
}

render(
  <Router base="/dashboard">
    <App />
  </Router>,
  document.getElementById('app')!,
);
