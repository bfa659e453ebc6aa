// The merchant-file module's public face: other modules and the processes import only what is listed here.
export { type DemoSeedResult, seedDemo } from './demo-seed.ts';
export { applyMerchant, MerchantApplyError } from './merchant-apply.ts';
export { MerchantDocumentError, parseMerchantDocument } from './merchant-document.ts';
