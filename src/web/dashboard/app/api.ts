/**
 * Every call the dashboard makes to the service goes through this module: the session cookie rides along, the
 * CSRF token is added to each change, and an error answer becomes an ApiError with the service's code and message.
 * Swapping in a generated API client means changing this file only.
 */

export type FieldError = { field: string; message: string };

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: FieldError[] = [],
  ) {
    super(message);
  }
}

export type Role = 'owner' | 'admin' | 'finance' | 'support';
export type Session = {
  user: { id: string; email: string; role: Role; locale: string; totp_enabled: boolean };
  account: { id: string; name: string; slug: string; time_zone: string };
  permissions: string[];
  csrf_token: string;
};
export type Summary = {
  time_zone: string;
  revenue_cents: number;
  paid_orders: number;
  card_approved: number;
  card_declined: number;
  card_approval_rate: number | null;
  pix_generated: number;
  pix_paid: number;
  boleto_generated: number;
  boleto_paid: number;
  refunds: number;
  refunded_cents: number;
  chargebacks: number;
  daily: Array<{ day: string; revenue_cents: number; paid_orders: number }>;
};
export type OrderSummary = {
  id: number;
  uid: string;
  status: string;
  total: number;
  created_at: string;
  customer?: { name?: string; email?: string };
};
export type OrdersPage = {
  meta: { current_page: number; total_pages: number; total_count: number; per_page: number };
  data: OrderSummary[];
};
export type OrderPage = {
  order: OrderSummary & {
    link?: string;
    items: Array<{ product_name: string; quantity: number; total: number; value: number }>;
    customer?: { name?: string; email?: string; phone?: string; identification?: string };
  };
  totals: { total_cents: number; paid_cents: number; refunded_cents: number };
  payments: Array<{
    id: number;
    gateway: string;
    method: string;
    status: string;
    amount_cents: number;
    refunded_cents: number;
    refundable_cents: number;
    gateway_id: string | null;
    installments: number;
    paid_at: string | null;
    created_at: string;
  }>;
  events: Array<{
    id: number;
    type: string;
    cause: string;
    from_status: string | null;
    to_status: string | null;
    created_at: string;
  }>;
  actions: Array<{ actor: string; action: string; data: Record<string, unknown>; created_at: string }>;
};
export type ApiKey = {
  id: string;
  prefix: string;
  label: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
};
export type Endpoint = { id: string; url: string; enabled: boolean; event_types: string[]; description: string | null };
export type User = {
  id: string;
  email: string;
  role: Role;
  totp_enabled: boolean;
  has_password: boolean;
  created_at: string;
};
export type AuditEntry = {
  id: number;
  actor: string;
  action: string;
  subject: string | null;
  data: Record<string, unknown>;
  ip: string | null;
  created_at: string;
};

// Settings, allowed hosts, inbound webhook credentials.
export type FineTerms = {
  fine_type: 'fixed' | 'percentage';
  fine: number;
  fine_tax: number;
  late_interest: number;
  late_interest_tax: number;
};
export type CompanySettings = {
  id: number;
  slug: string;
  primary: boolean;
  name: string;
  legal_name: string | null;
  document: string | null;
  address: {
    street: string | null;
    street_number: string | null;
    complement: string | null;
    district: string | null;
    postal_code: string | null;
    city: string;
    state: string | null;
  };
  time_zone: string;
  pix_expiration_minutes: number;
  boleto_due_days: number;
  fine_terms: FineTerms;
  updated_at: string;
};
export type CompanySettingsChange = Partial<
  Pick<CompanySettings, 'name' | 'time_zone' | 'pix_expiration_minutes' | 'boleto_due_days'>
> & {
  legal_name?: string;
  document?: string;
  city?: string;
  state?: string;
  address?: Partial<Record<'street' | 'street_number' | 'complement' | 'district' | 'postal_code', string>>;
  fine_terms?: Partial<FineTerms>;
};
export type GatewayCredential = {
  gateway: 'gateway_a' | 'gateway_b' | 'gateway_c' | 'bank';
  configured: boolean;
  enabled: boolean;
  public_key: string | null;
  secret_last4: string | null;
  secret_set_at: string | null;
};
export type WebhookCredential = {
  company_id: number;
  company_name: string;
  receiver: string;
  auth: 'basic' | 'signature' | 'topic';
  url: string;
  configured: boolean;
  username: string | null;
  set_at: string | null;
  previous_secret_accepted: boolean;
  grace: 'previous_until_next_rotation' | 'none' | 'not_applicable';
  rotatable: boolean;
};
export type RotatedWebhookCredential = {
  receiver: string;
  url: string;
  username: string | null;
  secret: string;
  previous_secret_accepted: boolean;
};

const BASE = '/api/v1/dashboard';
let csrfToken = '';

export function rememberCsrf(token: string): void {
  csrfToken = token;
}

/** The session's CSRF token, for the typed client (client.ts). */
export const currentCsrf = () => csrfToken;

async function call<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
  const response = await fetch(`${BASE}${path}`, {
    method,
    credentials: 'same-origin',
    headers: {
      accept: 'application/json',
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(method !== 'GET' ? { 'x-csrf-token': csrfToken } : {}),
      ...headers,
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  const json = text ? (JSON.parse(text) as unknown) : undefined;
  if (!response.ok) {
    const error = (json ?? {}) as { code?: string; message?: string; details?: FieldError[] };
    throw new ApiError(
      response.status,
      error.code ?? 'unknown',
      error.message ?? response.statusText,
      error.details ?? [],
    );
  }
  return json as T;
}

const withSession = async (promise: Promise<Session>) => {
  const session = await promise;
  rememberCsrf(session.csrf_token);
  return session;
};

export const api = {
  session: () => withSession(call<Session>('GET', '/session')),
  signIn: (body: { email: string; password: string; totp_code?: string }) =>
    withSession(call<Session>('POST', '/session', body)),
  signOut: () => call<void>('DELETE', '/session'),
  signOutEverywhere: () => call<void>('POST', '/sessions/end_all'),
  inspectLink: (token: string) =>
    call<{ email: string; purpose: string; needs_password: boolean }>('POST', '/links/inspect', { token }),
  redeemLink: (token: string, password?: string) =>
    withSession(call<Session>('POST', '/links/redeem', password ? { token, password } : { token })),
  summary: (from: string, to: string) => call<Summary>('GET', `/summary?initial_date=${from}&final_date=${to}`),
  orders: (query: string) => call<OrdersPage>('GET', `/orders${query ? `?${query}` : ''}`),
  ordersCsvUrl: (query: string) => `${BASE}/orders.csv${query ? `?${query}` : ''}`,
  order: (id: string) => call<OrderPage>('GET', `/orders/${encodeURIComponent(id)}`),
  refund: (paymentId: number, amountCents: number, idempotencyKey: string) =>
    call<void>(
      'POST',
      `/payments/${paymentId}/refund`,
      { amount_cents: amountCents },
      { 'idempotency-key': idempotencyKey },
    ),
  apiKeys: () => call<{ data: ApiKey[] }>('GET', '/api_keys'),
  createApiKey: (label: string) => call<{ api_key: string }>('POST', '/api_keys', { label }),
  rotateApiKeys: (graceSeconds: number) =>
    call<{ api_key: string }>('POST', '/api_keys/rotate', { grace_seconds: graceSeconds }),
  revokeApiKey: (id: string) => call<void>('DELETE', `/api_keys/${id}`),
  endpoints: () => call<{ data: Endpoint[] }>('GET', '/notification_endpoints'),
  createEndpoint: (url: string, description: string) =>
    call<{ endpoint: Endpoint; secret: string }>(
      'POST',
      '/notification_endpoints',
      description ? { url, description } : { url },
    ),
  setEndpointEnabled: (id: string, enabled: boolean) =>
    call<Endpoint>('PATCH', `/notification_endpoints/${id}`, { enabled }),
  rotateEndpointSecret: (id: string) =>
    call<{ endpoint: Endpoint; secret: string }>('POST', `/notification_endpoints/${id}/rotate_secret`, {
      grace_seconds: 86_400,
    }),
  users: () => call<{ data: User[] }>('GET', '/users'),
  invite: (email: string, role: Role) =>
    call<{ user: User; invite_url: string; emailed: boolean }>('POST', '/users', { email, role }),
  changeRole: (id: string, role: Role) => call<User>('PATCH', `/users/${id}`, { role }),
  removeUser: (id: string) => call<void>('DELETE', `/users/${id}`),
  auditLog: (before?: number) => call<{ data: AuditEntry[] }>('GET', `/audit_log${before ? `?before=${before}` : ''}`),
  // Settings, allowed hosts, inbound webhook credentials.
  settings: () => call<{ companies: CompanySettings[] }>('GET', '/settings'),
  updateCompany: (id: number, change: CompanySettingsChange) =>
    call<CompanySettings>('PATCH', `/settings/companies/${id}`, change),
  gateways: (companyId: number) =>
    call<{ data: GatewayCredential[] }>('GET', `/settings/companies/${companyId}/gateways`),
  setGateway: (
    companyId: number,
    gateway: string,
    change: { enabled?: boolean; public_key?: string; secret_key?: string },
  ) => call<GatewayCredential>('PATCH', `/settings/companies/${companyId}/gateways/${gateway}`, change),
  allowedHosts: () => call<{ allowed_hosts: string[] }>('GET', '/allowed_hosts'),
  setAllowedHosts: (hosts: string[]) =>
    call<{ allowed_hosts: string[] }>('PUT', '/allowed_hosts', { allowed_hosts: hosts }),
  webhookCredentials: () => call<{ data: WebhookCredential[] }>('GET', '/webhook_credentials'),
  rotateWebhookCredential: (companyId: number, receiver: string, keepPrevious: boolean) =>
    call<RotatedWebhookCredential>('POST', `/webhook_credentials/${companyId}/${receiver}/rotate`, {
      keep_previous: keepPrevious,
    }),
};
