import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app.ts';

export function registerUpsellRoutes(_parent: FastifyInstance, _context: AppContext): void {}
