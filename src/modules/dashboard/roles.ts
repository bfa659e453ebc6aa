/** The four roles of a dashboard user and what each may do; every dashboard route names the permission it needs. */
export const ROLES = ['owner', 'admin', 'finance', 'support'] as const;
export type Role = (typeof ROLES)[number];

export const PERMISSIONS = {
  /** Home figures, orders, an order's page, customers: every role. */
  'sales.read': ['owner', 'admin', 'finance', 'support'],
  /** Refunds and other acts on an order's money. */
  'refunds.create': ['owner', 'admin', 'finance'],
  /** Acts on an order that move no money: cancel an unpaid order, send its notification again. */
  'orders.manage': ['owner', 'admin', 'finance'],
  /** Cancel a customer's subscription (as Stripe keeps it to administrators). */
  'subscriptions.cancel': ['owner', 'admin'],
  /** CSV exports. */
  'orders.export': ['owner', 'admin', 'finance'],
  /** Company data, Pix and boleto terms, default fine and late interest: read by every role. */
  'settings.read': ['owner', 'admin', 'finance', 'support'],
  /** Changing those, and the gateway credentials (whose status only these roles see). */
  'settings.manage': ['owner', 'admin'],
  /** API keys, allowed hosts, notification endpoints, inbound webhook credentials. */
  'developers.manage': ['owner', 'admin'],
  /** Users, invites and role changes. */
  'users.manage': ['owner'],
  /** The account's audit log. */
  'audit.read': ['owner'],
} as const satisfies Record<string, readonly Role[]>;

export type Permission = keyof typeof PERMISSIONS;

export function can(role: Role, permission: Permission): boolean {
  return (PERMISSIONS[permission] as readonly Role[]).includes(role);
}

export function permissionsOf(role: Role): Permission[] {
  return (Object.keys(PERMISSIONS) as Permission[]).filter((permission) => can(role, permission));
}
