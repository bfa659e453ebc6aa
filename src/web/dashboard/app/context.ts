import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Session } from './client.ts';
import { translator, type Locale, type Translate } from './i18n.ts';

export type DashboardContext = {
  session: Session;
  locale: Locale;
  t: Translate;
  can(permission: string): boolean;
};

export const Dashboard = createContext<DashboardContext>({
  session: undefined as unknown as Session,
  locale: 'pt-BR',
  t: translator('pt-BR'),
  can: () => false,
});

export const useDashboard = () => useContext(Dashboard);
