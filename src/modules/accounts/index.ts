/** What other modules use of the merchant file: its schemas and its rules, so a value is judged the same everywhere. */
export { allowedHostProblems, companyDataProblems, fineTermProblems, type Problem } from './merchant-document.rules.ts';
export { CompanySchema, GatewaySchema, PaymentPlanSchema } from './merchant-document.schema.ts';
