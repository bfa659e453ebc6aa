import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../http/app-context.ts';
import { errorResponses } from '../../http/schemas.ts';
import { availableSlots } from './scheduling.service.ts';

const SlotsQuery = Type.Object(
  { date: Type.Optional(Type.String({ description: 'YYYY-MM-DD, in the company’s time zone' })) },
  { additionalProperties: false },
);

// The id stays text: a malformed one answers an empty list, as the specification asks, not a 422.
const CompanyParams = Type.Object({ id: Type.String({ description: 'company id (integer)' }) });

export function registerSchedulingRoutes(parent: FastifyInstance, { database, clock }: AppContext): void {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/companies/:id/available_schedules',
    {
      // The specification shows neither a key nor a host restriction: anyone may read free slots.
      config: { access: 'open', rateLimit: 'public' },
      schema: {
        tags: ['Companies'],
        description:
          'Free HH:MM slots of the company on a date, in its time zone. Empty when id or date is missing or malformed, the company is unknown, the date is past or the weekday has no schedule.',
        params: CompanyParams,
        querystring: SlotsQuery,
        response: { 200: Type.Array(Type.String({ pattern: '^[0-2][0-9]:[0-5][0-9]$' })), ...errorResponses(422) },
      },
    },
    async (request) => availableSlots(database.db, request.params.id, request.query.date, clock()),
  );
}
