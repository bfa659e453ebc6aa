import { Type } from 'typebox';
import { IntegerId, Money } from '../../../http/schemas.ts';
import { Instant } from '../../../http/date-range.ts';

/** The accepted refund reasons; `requested_by_customer` when the body names none. */
export const REFUND_TYPES = ['requested_by_customer', 'duplicate', 'fraudulent', 'chargeback', 'other'] as const;
export type RefundType = (typeof REFUND_TYPES)[number];

export const RefundParams = Type.Object(
  { id: IntegerId({ description: 'the payment id' }) },
  { additionalProperties: false },
);

export const RefundBody = Type.Object(
  {
    amount: Type.Optional(Money({ exclusiveMinimum: 0, description: 'in reais; omit to refund what remains' })),
    date: Type.Optional(
      Instant({
        description:
          'when the refund was made (ISO 8601); default now; never in the future nor before the payment was created',
      }),
    ),
    type: Type.Optional(
      Type.Union(
        REFUND_TYPES.map((value) => Type.Literal(value)),
        { description: 'default requested_by_customer' },
      ),
    ),
    transaction_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'the gateway id of another charge of the same order to refund',
      }),
    ),
  },
  { additionalProperties: false },
);

export const RefundDone = Type.Null({ description: 'refunded; empty body' });
