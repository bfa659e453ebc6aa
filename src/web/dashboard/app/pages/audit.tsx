import { useState } from 'preact/hooks';
import { answer, dashboardClient, type Answer } from '../client.ts';
import { useDashboard } from '../context.ts';
import { dateTime } from '../format.ts';
import { errorText, Loading, PageTitle, useLoad } from '../ui.tsx';

type AuditEntry = Answer<'/dashboard/audit_log', 'get'>['data'][number];

const auditLog = (before?: number) =>
  answer(dashboardClient.GET('/dashboard/audit_log', { params: { query: before ? { before } : {} } }));

export function AuditPage() {
  const { t, locale, session } = useDashboard();
  const state = useLoad(() => auditLog(), []);
  const [more, setMore] = useState<AuditEntry[]>([]);
  const [error, setError] = useState<string>();
  const entries = [...(state.data?.data ?? []), ...more];
  const loadMore = async () => {
    try {
      const next = await auditLog(entries[entries.length - 1]?.id);
      setMore([...more, ...next.data]);
    } catch (caught) {
      setError(errorText(caught));
    }
  };
  return (
    <section aria-labelledby="page-title">
      <PageTitle>{t('audit.title')}</PageTitle>
      <Loading state={state} />
      {error && (
        <p class="alert error" role="alert">
          {error}
        </p>
      )}
      {state.data && (
        <div class="table-wrap" tabIndex={0} role="region" aria-label={t('audit.title')}>
          <table>
            <thead>
              <tr>
                <th scope="col">{t('audit.when')}</th>
                <th scope="col">{t('audit.who')}</th>
                <th scope="col">{t('audit.what')}</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((entry) => (
                <tr key={entry.id}>
                  <td>{dateTime(entry.created_at, locale, session.account.time_zone)}</td>
                  <td class="break">{entry.actor}</td>
                  <td>
                    {entry.action} {entry.subject && <span class="muted">{entry.subject}</span>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {state.data && state.data.data.length === 50 && (
        <button type="button" class="secondary" onClick={loadMore}>
          {t('audit.more')}
        </button>
      )}
    </section>
  );
}
