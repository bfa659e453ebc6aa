export { CARD_HASH_KEY_LIFETIME_MS } from './card-hash.ts';
export { GatewayCClient } from './client.ts';
export { inboundEventFrom } from './transformers.ts';
export { verifyWebhook } from './webhook.ts';
export type * from './types.ts';
