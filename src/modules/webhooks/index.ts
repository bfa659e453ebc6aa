// The webhooks module's public face: other modules and the processes import only what is listed here.
export { topicOptionsFromEnv } from './sns-signature.ts';
export { webhookDeadJobHandlers, webhookJobHandlers } from './webhook-jobs.ts';
export { registerWebhookMetrics } from './webhook-metrics.ts';
export { runWebhooksCommand, WebhookCommandError, WebhookUsageError } from './webhooks.cli.ts';
export { registerWebhookRoutes } from './webhooks.routes.ts';
