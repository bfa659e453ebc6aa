export { GatewayBClient } from './client.ts';
export { inboundEventFrom } from './transformers.ts';
export { signatureHeader, verifyWebhook } from './webhook.ts';
export type * from './types.ts';
