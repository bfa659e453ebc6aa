// The merchant-file module's public face: other modules and the processes import only what is listed here.
export { MerchantApplyError } from './merchant-apply.support.ts';
export { applyMerchant, type ApplyResult } from './merchant-apply.ts';
export { allowedHostProblems, companyDataProblems, fineTermProblems, type Problem } from './merchant-document.rules.ts';
export { CompanySchema, GatewaySchema, type MerchantDocument, PaymentPlanSchema } from './merchant-document.schema.ts';
export { MerchantDocumentError, parseMerchantDocument } from './merchant-document.ts';
