import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../http/app-context.ts';
import { applyPaymentAction } from '../payments/index.ts';
import {
  receiveBank,
  receiveGatewayA,
  receiveGatewayB,
  receiveInvoicing,
  receivePlatform,
  type ReceiverDeps,
} from './receivers.ts';
import { topicOptionsFromEnv, type TopicOptions } from './sns-signature.ts';
import { receiveTopic } from './topic-receiver.ts';
import { registerWebhookEventRoutes } from './webhook-events.routes.ts';
import type { ApplyAction } from './webhook-deps.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The exact bytes received, for signature checks (webhook routes only). */
    rawBody?: Buffer;
  }
}

export type WebhookOptions = { applyAction: ApplyAction; topic: TopicOptions };

export function defaultWebhookOptions(): WebhookOptions {
  return { applyAction: applyPaymentAction, topic: topicOptionsFromEnv() };
}

const RAW_TYPES = ['application/json', 'application/x-www-form-urlencoded', 'text/plain'];
const open = { config: { access: 'open' as const } };

/** The six receivers, with injectable collaborators (tests pass a failing `applyAction` or a local certificate host). */
export function createWebhookRoutes(options: WebhookOptions) {
  return (parent: FastifyInstance, context: AppContext): void => {
    const deps: ReceiverDeps = {
      db: context.database.db,
      clock: context.clock,
      masterKey: context.config.masterKey,
      applyAction: options.applyAction,
    };
    void parent.register(async (scope) => {
      // Signatures cover the raw bytes: the receivers parse the body themselves after authenticating.
      for (const type of ['application/json', 'text/plain'])
        if (scope.hasContentTypeParser(type)) scope.removeContentTypeParser(type);
      scope.addContentTypeParser(RAW_TYPES, { parseAs: 'buffer' }, (request, body, done) => {
        request.rawBody = body as Buffer;
        done(null, body);
      });
      const delivery = (request: FastifyRequest) => ({
        headers: request.headers,
        rawBody: request.rawBody ?? Buffer.alloc(0),
      });
      // A path id that cannot name a company names no company: the receiver's 401, as for an id no company has.
      const companyOf = (request: FastifyRequest): number | null => {
        const raw = (request.params as { company_id: string }).company_id;
        return /^[1-9]\d{0,14}$/.test(raw) ? Number(raw) : null;
      };
      scope.post('/webhooks', open, async (request) => answer(await receiveGatewayA(deps, delivery(request))));
      scope.post('/webhooks/platform', open, async (request) => answer(await receivePlatform(deps, delivery(request))));
      scope.post('/webhooks/invoicing', open, async (request) =>
        answer(await receiveInvoicing(deps, delivery(request))),
      );
      scope.post('/webhooks/topic', open, async (request) => receiveTopic(deps, options.topic, delivery(request)));
      scope.post('/webhooks/:company_id/gateway_b', open, async (request) =>
        answer(await receiveGatewayB(deps, companyOf(request), delivery(request))),
      );
      scope.post('/webhooks/:company_id/bank', open, async (request) =>
        answer(await receiveBank(deps, companyOf(request), delivery(request))),
      );
    });
  };
}

/** 200 once the event is stored: `received` (the worker applies it) or `duplicate` (stored before; nothing changes). */
function answer(receipt: { duplicate: boolean; status: string }): { status: string } {
  return { status: receipt.duplicate ? 'duplicate' : receipt.status };
}

let overrides: Partial<WebhookOptions> = {};

/** Replaces collaborators for apps built afterwards (tests); returns the function that restores the defaults. */
export function useWebhookOptions(next: Partial<WebhookOptions>): () => void {
  overrides = next;
  return () => (overrides = {});
}

/** The receivers, and the key routes over the account's stored events (the dead-event list and its replay). */
export function registerWebhookRoutes(parent: FastifyInstance, context: AppContext): void {
  createWebhookRoutes({ ...defaultWebhookOptions(), ...overrides })(parent, context);
  registerWebhookEventRoutes(parent, context);
}
