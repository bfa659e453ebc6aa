/** What other modules use of accounts. */
export { generateKey } from './api-keys.ts';
