// The accounts module's public face: other modules and the processes import only what is listed here.
export { findPrimaryCompanyId, ownedCompanyIds } from './accounts.repo.ts';
export { isValidAllowedHost } from './allowed-hosts.ts';
export { composeKey, generateKey, type IssuedKey, rotateKey, storeKey } from './api-keys.ts';
export { assertPublicAccess, companyFromHost, registerAuthentication, requireAccount } from './authentication.ts';
export type { CompanyRef } from './company-ref.ts';
