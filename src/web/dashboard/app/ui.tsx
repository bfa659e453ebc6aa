import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from './client.ts';
import { useDashboard } from './context.ts';
import { LOCALES, type Locale } from './i18n.ts';

/** Loads `load()` when `key` changes; the page shows the loading line, the error or the data. */
export function useLoad<T>(load: () => Promise<T>, key: unknown[]) {
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>({ loading: true });
  const [version, setVersion] = useState(0);
  useEffect(() => {
    let live = true;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => live && setState({ data, loading: false }),
      (error: unknown) => live && setState({ error: errorText(error), loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...key, version]);
  return { ...state, reload: () => setVersion((n) => n + 1) };
}

export function errorText(error: unknown): string {
  if (error instanceof ApiError) {
    const detail = error.details[0];
    return detail ? `${error.message}: ${detail.field.replace(/^body\//, '')} ${detail.message}` : error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

export function Loading({ state }: { state: { loading: boolean; error?: string } }) {
  const { t } = useDashboard();
  if (state.error)
    return (
      <p class="alert error" role="alert">
        {t('common.error')}: {state.error}
      </p>
    );
  return state.loading ? (
    <p class="muted" role="status">
      {t('common.loading')}
    </p>
  ) : null;
}

export function PageTitle({ children }: { children: ComponentChildren }) {
  useEffect(() => {
    document.title = `${typeof children === 'string' ? children : ''} · Painel`;
  }, [children]);
  return (
    <h1 id="page-title" tabIndex={-1}>
      {children}
    </h1>
  );
}

/** A secret shown once, with a copy button. */
export function ShownOnce({ label, value }: { label: string; value: string }) {
  const { t } = useDashboard();
  const [copied, setCopied] = useState(false);
  return (
    <div class="alert success" role="status">
      <p>{label}</p>
      <code class="secret" data-testid="shown-once">
        {value}
      </code>
      <button
        type="button"
        class="secondary"
        onClick={() =>
          navigator.clipboard?.writeText(value).then(
            () => setCopied(true),
            () => undefined,
          )
        }
      >
        {copied ? t('common.copied') : t('common.copy')}
      </button>
    </div>
  );
}

/** The language picker, each language named in itself; `className` places it (the header, the sign-in form). */
export function LanguageSelect(props: {
  label: string;
  locale: Locale;
  onLocale(locale: Locale): void;
  className: string;
}) {
  return (
    <label class={props.className}>
      <span class="sr-only">{props.label}</span>
      <select value={props.locale} onChange={(event) => props.onLocale(event.currentTarget.value as Locale)}>
        {LOCALES.map((option) => (
          <option key={option} value={option}>
            {option === 'en' ? 'English' : 'Português'}
          </option>
        ))}
      </select>
    </label>
  );
}
