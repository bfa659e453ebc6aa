// The merchant-file module's public face: other modules and the processes import only what is listed here.
export { applyMerchant, type ApplyResult, MerchantApplyError } from './merchant-apply.ts';
export { allowedHostProblems, companyDataProblems, fineTermProblems, type Problem } from './merchant-document.rules.ts';
export { CompanySchema, GatewaySchema, PaymentPlanSchema } from './merchant-document.schema.ts';
export { type MerchantDocument, MerchantDocumentError, parseMerchantDocument } from './merchant-document.ts';
