import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Link, useLocation } from 'wouter-preact';
import { answer, dashboardClient } from './client.ts';
import { useDashboard } from './context.ts';
import { LanguageSelect } from './ui.tsx';
import { type Locale, type MessageKey } from './i18n.ts';

const NAV: Array<{ href: string; label: MessageKey; permission: string }> = [
  { href: '/', label: 'nav.home', permission: 'sales.read' },
  { href: '/orders', label: 'nav.orders', permission: 'sales.read' },
  { href: '/customers', label: 'nav.customers', permission: 'sales.read' },
  { href: '/developers', label: 'nav.developers', permission: 'developers.manage' },
  { href: '/users', label: 'nav.users', permission: 'users.manage' },
  { href: '/audit', label: 'nav.audit', permission: 'audit.read' },
  { href: '/settings', label: 'nav.settings', permission: 'settings.read' },
  { href: '/security', label: 'nav.security', permission: 'sales.read' },
];

export function Layout(props: { children: ComponentChildren; onLocale(locale: Locale): void; onSignedOut(): void }) {
  const { session, t, can, locale } = useDashboard();
  const [location] = useLocation();
  // On a narrow screen the navigation and account controls fold behind a menu button (a disclosure).
  const [menuOpen, setMenuOpen] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);
  // A new page moves focus to its title, so a screen reader announces where the user is, and folds the menu.
  useEffect(() => {
    setMenuOpen(false);
    document.getElementById('page-title')?.focus();
  }, [location]);
  const closeOnEscape = (event: KeyboardEvent) => {
    if (event.key !== 'Escape' || !menuOpen) return;
    setMenuOpen(false);
    toggle.current?.focus();
  };
  const signOut = async (everywhere: boolean) => {
    await answer(
      everywhere ? dashboardClient.POST('/dashboard/sessions/end_all') : dashboardClient.DELETE('/dashboard/session'),
    ).catch(() => undefined);
    props.onSignedOut();
  };
  const current = (href: string) => (href === '/' ? location === '/' : location.startsWith(href));
  return (
    <>
      <a class="skip" href="#main">
        {t('nav.skip')}
      </a>
      <header class="top" onKeyDown={closeOnEscape}>
        <div class="brand">
          <span class="logo" aria-hidden="true">
            ◆
          </span>
          <span>{session.account.name}</span>
        </div>
        <button
          ref={toggle}
          type="button"
          class="secondary menu-toggle"
          aria-expanded={menuOpen}
          aria-controls="main-menu"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          <span aria-hidden="true">{menuOpen ? '✕' : '☰'}</span> {t('nav.menu')}
        </button>
        <div id="main-menu" class={`menu-panel${menuOpen ? ' open' : ''}`}>
          <nav aria-label={t('nav.main')}>
            <ul>
              {NAV.filter((item) => can(item.permission)).map((item) => (
                <li key={item.href}>
                  <Link href={item.href} aria-current={current(item.href) ? 'page' : undefined}>
                    {t(item.label)}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
          <div class="account">
            <LanguageSelect className="inline" label={t('nav.language')} locale={locale} onLocale={props.onLocale} />
            <span class="muted user" title={session.user.email}>
              {session.user.email} · {t(`role.${session.user.role}` as MessageKey)}
            </span>
            <button type="button" class="secondary" onClick={() => signOut(false)}>
              {t('nav.signOut')}
            </button>
            <button type="button" class="link" onClick={() => signOut(true)}>
              {t('nav.signOutEverywhere')}
            </button>
          </div>
        </div>
      </header>
      <main id="main">{props.children}</main>
    </>
  );
}
