import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app.ts';

export function registerWebhookRoutes(_parent: FastifyInstance, _context: AppContext): void {}
