export { cardHashPlaintext, encryptCardHash, CARD_HASH_KEY_LIFETIME_MS } from './card-hash.ts';
export { GatewayCClient, type CardHashKey } from './client.ts';
export { inboundEventFrom, remoteStatusFrom } from './transformers.ts';
export { postbackSignature, SIGNATURE_HEADER, verifyWebhook, type GatewayCWebhookCredentials } from './webhook.ts';
export type * from './types.ts';
