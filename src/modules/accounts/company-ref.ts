/** A company of an account: what a public request resolves to from its host or its ids. */
export type CompanyRef = { accountId: string; companyId: number };
