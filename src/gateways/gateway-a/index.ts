export { GatewayAClient } from './client.ts';
export { inboundEventFrom, remoteStatusFrom, webhookCompanyId } from './transformers.ts';
export { verifyWebhook, type GatewayAWebhookCredentials } from './webhook.ts';
export type * from './types.ts';
