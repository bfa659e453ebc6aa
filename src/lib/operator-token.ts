import { deriveSecret } from './crypto.ts';

/**
 * The bearer token of the operator's CLI commands that talk to the running service (`checkout listen`,
 * `checkout trigger`). It is derived from the master key, so a CLI configured like the service (same
 * MASTER_KEY, or the same DATA_DIR holding the generated one) has it, and nobody else does.
 */
export function operatorToken(masterKey: Buffer): string {
  return deriveSecret(masterKey, 'operator-cli').toString('base64url');
}
