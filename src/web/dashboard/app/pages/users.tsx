import { useState } from 'preact/hooks';
import { answer, dashboardClient, type Role } from '../client.ts';
import { useDashboard } from '../context.ts';
import type { MessageKey } from '../i18n.ts';
import { errorText, Loading, PageTitle, ShownOnce, useLoad } from '../ui.tsx';

const ROLES: Role[] = ['owner', 'admin', 'finance', 'support'];

export function UsersPage() {
  const { t, session } = useDashboard();
  const state = useLoad(() => answer(dashboardClient.GET('/dashboard/users')), []);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('support');
  const [invite, setInvite] = useState<{ url: string; emailed: boolean }>();
  const [error, setError] = useState<string>();
  const act = async (action: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await action();
      state.reload();
    } catch (caught) {
      setError(errorText(caught));
    }
  };
  const roleName = (value: Role) => t(`role.${value}` as MessageKey);
  return (
    <section aria-labelledby="page-title">
      <PageTitle>{t('users.title')}</PageTitle>
      {error && (
        <p class="alert error" role="alert">
          {error}
        </p>
      )}
      <div class="card">
        <Loading state={state} />
        {state.data && (
          <ul class="plain list">
            {state.data.data.map((user) => (
              <li key={user.id} class="row spread">
                <span class="break">
                  {user.email} {!user.has_password && <span class="muted">({t('users.pending')})</span>}
                </span>
                <span class="row">
                  <label class="inline">
                    <span class="sr-only">
                      {t('users.role')} {user.email}
                    </span>
                    <select
                      value={user.role}
                      onChange={(e) =>
                        act(() =>
                          answer(
                            dashboardClient.PATCH('/dashboard/users/{id}', {
                              params: { path: { id: user.id } },
                              body: { role: e.currentTarget.value as Role },
                            }),
                          ),
                        )
                      }
                    >
                      {ROLES.map((option) => (
                        <option key={option} value={option}>
                          {roleName(option)}
                        </option>
                      ))}
                    </select>
                  </label>
                  {user.id !== session.user.id && (
                    <button
                      type="button"
                      class="secondary"
                      aria-label={`${t('users.remove')} ${user.email}`}
                      onClick={() =>
                        act(() =>
                          answer(
                            dashboardClient.DELETE('/dashboard/users/{id}', { params: { path: { id: user.id } } }),
                          ),
                        )
                      }
                    >
                      {t('users.remove')}
                    </button>
                  )}
                </span>
              </li>
            ))}
          </ul>
        )}
      </div>
      <form
        class="card row"
        onSubmit={(e) => {
          e.preventDefault();
          void act(async () => {
            const invited = await answer(dashboardClient.POST('/dashboard/users', { body: { email, role } }));
            setInvite({ url: invited.invite_url, emailed: invited.emailed });
            setEmail('');
          });
        }}
      >
        <label class="grow">
          E-mail
          <input
            type="email"
            name="invite-email"
            required
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
        </label>
        <label>
          {t('users.role')}
          <select name="invite-role" value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
            {ROLES.map((option) => (
              <option key={option} value={option}>
                {roleName(option)}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">{t('users.invite')}</button>
      </form>
      {invite && (
        <>
          <ShownOnce label={t('users.inviteLink')} value={invite.url} />
          {invite.emailed && <p class="muted">{t('users.emailed')}</p>}
        </>
      )}
    </section>
  );
}
