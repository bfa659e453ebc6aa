export { GatewayAClient } from './client.ts';
export { inboundEventFrom, webhookCompanyId } from './transformers.ts';
export { verifyWebhook } from './webhook.ts';
export type * from './types.ts';
