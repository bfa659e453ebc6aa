import { Type } from 'typebox';

export const EVENTS_PAGE_SIZE = 25;
export const EVENTS_MAX_PAGE_SIZE = 100;

const DateTime = Type.String({ format: 'date-time' });
const NullableDateTime = Type.Union([DateTime, Type.Null()]);
const Status = Type.Union(
  [Type.Literal('received'), Type.Literal('processed'), Type.Literal('ignored'), Type.Literal('failed')],
  {
    description:
      'received: waiting for (or retrying) its application; processed / ignored: applied; failed: its job ran out of attempts, replayable',
  },
);

export const WebhookEventIdParams = Type.Object(
  { id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) },
  { additionalProperties: false },
);

export const WebhookEventListQuery = Type.Object(
  {
    status: Type.Optional(Status),
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: EVENTS_MAX_PAGE_SIZE, default: EVENTS_PAGE_SIZE })),
  },
  { additionalProperties: false },
);

export const WebhookEventSchema = Type.Object(
  {
    id: Type.Integer(),
    receiver: Type.String({ description: 'gateway_a, gateway_b, bank, invoicing, platform or topic' }),
    company_id: Type.Union([Type.Integer(), Type.Null()]),
    event_id: Type.String({ description: 'the sender’s event id (its deduplication key)' }),
    event_type: Type.String(),
    status: Status,
    attempts: Type.Integer({ description: 'attempts to apply it that failed (waiting for an earlier event is none)' }),
    last_error: Type.Union([Type.String(), Type.Null()]),
    received_at: DateTime,
    processed_at: NullableDateTime,
    failed_at: NullableDateTime,
  },
  { description: 'an inbound gateway, bank or platform event about the account, as received and applied' },
);

export const WebhookEventsIndexSchema = Type.Object({
  meta: Type.Object({
    current_page: Type.Integer(),
    total_pages: Type.Integer(),
    total_count: Type.Integer(),
    per_page: Type.Integer(),
  }),
  data: Type.Array(WebhookEventSchema),
});

export const ReplayResultSchema = Type.Object({
  replayed: Type.Boolean({ description: 'false when the event is already queued (received, with a live job)' }),
  event: WebhookEventSchema,
});

export const EmptyBody = Type.Object({}, { additionalProperties: false });
