import { Type } from 'typebox';
import { IntegerId } from '../../http/schemas.ts';
import { NOTIFICATION_EVENT_TYPES } from './event-types.ts';

export const DELIVERIES_PAGE_SIZE = 25;
export const DELIVERIES_MAX_PAGE_SIZE = 100;
/** A rotation's grace period may last up to a week (the CLI default is a day). */
export const MAX_GRACE_SECONDS = 7 * 86_400;

const EndpointId = Type.String({ pattern: '^ep_[0-9a-f]{24}$', description: 'ep_ and 24 hex digits' });
const DeliveryId = Type.String({ pattern: '^dlv_[0-9a-f]{24}$', description: 'dlv_ and 24 hex digits' });
const DateTime = (description?: string) =>
  Type.String({ format: 'date-time', ...(description ? { description } : {}) });
const NullableDateTime = (description?: string) =>
  Type.Union([DateTime(), Type.Null()], description ? { description } : {});

export const EndpointIdParams = Type.Object({ id: EndpointId }, { additionalProperties: false });
export const DeliveryIdParams = Type.Object({ id: DeliveryId }, { additionalProperties: false });

// Types are plain strings here and checked by eventTypesProblem, whose message lists the known types.
const EventTypes = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
  maxItems: 32,
  description: `event types to receive; empty, absent or ["*"] means every type. Known: ${NOTIFICATION_EVENT_TYPES.join(', ')}`,
});
const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'http or https URL, without credentials; deliveries are POSTed here',
});
const Description = Type.Union([Type.String({ maxLength: 500 }), Type.Null()], {
  description: 'free text for the merchant',
});

export const EndpointCreateBody = Type.Object(
  {
    url: Url,
    event_types: Type.Optional(EventTypes),
    company_id: Type.Optional(
      IntegerId({ description: 'only events of this company of the account; absent: every company' }),
    ),
    description: Type.Optional(Description),
    enabled: Type.Optional(Type.Boolean({ default: true })),
  },
  { additionalProperties: false },
);

export const EndpointPatchBody = Type.Object(
  {
    url: Type.Optional(Url),
    event_types: Type.Optional(EventTypes),
    description: Type.Optional(Description),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, description: 'only the fields sent change' },
);

export const RotateSecretBody = Type.Object(
  {
    grace_seconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_GRACE_SECONDS,
        default: 86_400,
        description: 'how long the previous secret keeps signing too; 0 drops it now',
      }),
    ),
  },
  { additionalProperties: false },
);

/** Redelivery takes no input; a body, when sent, must be an empty object. */
export const EmptyBody = Type.Object({}, { additionalProperties: false });

export const EndpointSchema = Type.Object(
  {
    id: EndpointId,
    url: Type.String(),
    company_id: Type.Union([Type.Integer(), Type.Null()]),
    event_types: Type.Array(Type.String(), { description: '["*"] when the endpoint receives every type' }),
    enabled: Type.Boolean(),
    description: Type.Union([Type.String(), Type.Null()]),
    secret_rotation_ends_at: NullableDateTime(
      'while a rotation’s grace period lasts, when the previous secret stops signing',
    ),
    created_at: DateTime(),
  },
  { description: 'a notification endpoint; its signing secret is never shown here' },
);

export const EndpointWithSecretSchema = Type.Object({
  ...EndpointSchema.properties,
  secret: Type.String({ description: 'the signing secret (whsec_…): shown only in this answer, store it now' }),
});

export const EndpointListQuery = Type.Object(
  { enabled: Type.Optional(Type.Boolean({ description: 'only enabled (true) or disabled (false) endpoints' })) },
  { additionalProperties: false },
);

export const DeliveryListQuery = Type.Object(
  {
    status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')])),
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: DELIVERIES_MAX_PAGE_SIZE, default: DELIVERIES_PAGE_SIZE }),
    ),
  },
  { additionalProperties: false },
);

export const DeliverySchema = Type.Object(
  {
    id: DeliveryId,
    endpoint_id: EndpointId,
    event_id: Type.String(),
    event_type: Type.String(),
    status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
    attempts: Type.Integer({ description: 'attempts made so far' }),
    next_attempt_at: NullableDateTime(),
    last_status_code: Type.Union([Type.Integer(), Type.Null()]),
    last_error: Type.Union([Type.String(), Type.Null()]),
    delivered_at: NullableDateTime(),
    failed_at: NullableDateTime(),
    created_at: DateTime(),
  },
  { description: 'one event sent to one endpoint, with its retries' },
);

export const DeliveriesIndexSchema = Type.Object({
  meta: Type.Object({
    current_page: Type.Integer(),
    total_pages: Type.Integer(),
    total_count: Type.Integer(),
    per_page: Type.Integer(),
  }),
  data: Type.Array(DeliverySchema),
});

export const RedeliveryResultSchema = Type.Object({
  redelivered: Type.Boolean({ description: 'false when the delivery is pending with its next attempt already queued' }),
  delivery: DeliverySchema,
});
