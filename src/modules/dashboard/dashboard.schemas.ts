import { Type } from 'typebox';

export const TAG = 'Dashboard';

export const Email = Type.String({ format: 'email', minLength: 3, maxLength: 254 });
export const Password = Type.String({ minLength: 1, maxLength: 400 });
export const RoleSchema = Type.Union([
  Type.Literal('owner'),
  Type.Literal('admin'),
  Type.Literal('finance'),
  Type.Literal('support'),
]);
export const LinkToken = Type.String({ pattern: '^[A-Za-z0-9_-]{43}$' });

export const SignInBody = Type.Object(
  {
    email: Email,
    password: Password,
    totp_code: Type.Optional(Type.String({ pattern: '^[0-9]{6}$', description: 'required once TOTP is enabled' })),
  },
  { additionalProperties: false },
);

export const SessionView = Type.Object(
  {
    user: Type.Object({
      id: Type.String(),
      email: Type.String(),
      role: RoleSchema,
      locale: Type.String(),
      totp_enabled: Type.Boolean(),
    }),
    account: Type.Object({ id: Type.String(), name: Type.String(), slug: Type.String(), time_zone: Type.String() }),
    permissions: Type.Array(Type.String({ description: 'what the role may do (sales.read, refunds.create, …)' })),
    csrf_token: Type.String({ description: 'send it as X-CSRF-Token on every POST, PATCH and DELETE' }),
  },
  { $id: 'DashboardSession' },
);

export const LinkBody = Type.Object(
  {
    token: LinkToken,
    password: Type.Optional(Password),
  },
  { additionalProperties: false },
);

export const LinkInfo = Type.Object({
  email: Type.String(),
  purpose: Type.Union([Type.Literal('invite'), Type.Literal('sign_in')]),
  needs_password: Type.Boolean(),
});

export const Empty = Type.Null({ description: 'done; empty body' });

export const UserView = Type.Object({
  id: Type.String(),
  email: Type.String(),
  role: RoleSchema,
  totp_enabled: Type.Boolean(),
  has_password: Type.Boolean(),
  created_at: Type.String({ format: 'date-time' }),
});

export const UserIdParams = Type.Object({ id: Type.String({ format: 'uuid' }) }, { additionalProperties: false });
