export { GatewayBClient } from './client.ts';
export { inboundEventFrom, remoteStatusFrom } from './transformers.ts';
export { SIGNATURE_HEADER, signatureHeader, verifyWebhook, type GatewayBWebhookCredentials } from './webhook.ts';
export type * from './types.ts';
