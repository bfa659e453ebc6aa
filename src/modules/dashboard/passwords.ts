import { randomBytes, scrypt, type ScryptOptions } from 'node:crypto';
import { constantTimeEqual } from '../../lib/crypto.ts';
import { COMMON_PASSWORDS } from './common-passwords.ts';

/**
 * Passwords are hashed with scrypt (node:crypto): N = 2^15, r = 8, p = 1, a 16-byte random salt and a 32-byte
 * key, the parameters OWASP's password storage guidance gives for scrypt (about 32 MiB and some 50 ms a hash).
 * The parameters are stored with each hash, so raising them later still verifies the older hashes.
 */
export const SCRYPT_PARAMETERS = { N: 2 ** 15, r: 8, p: 1, keyLength: 32, saltLength: 16 } as const;
export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 200;

function derive(password: string, salt: Buffer, N: number, r: number, p: number, keyLength: number): Promise<Buffer> {
  const options: ScryptOptions = { N, r, p, maxmem: 128 * N * r * 2 };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, keyLength, options, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const { N, r, p, keyLength, saltLength } = SCRYPT_PARAMETERS;
  const salt = randomBytes(saltLength);
  const key = await derive(password, salt, N, r, p, keyLength);
  return ['scrypt', N, r, p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  // A user without a password still costs one hash, so the answer time does not tell who has one.
  const [scheme, n, r, p, salt, key] = (stored ?? '').split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !key) {
    await hashPassword(password);
    return false;
  }
  const expected = Buffer.from(key, 'base64url');
  const actual = await derive(
    password,
    Buffer.from(salt, 'base64url'),
    Number(n),
    Number(r),
    Number(p),
    expected.length,
  );
  return constantTimeEqual(actual, expected);
}

/** Why a new password is refused, or undefined when it is acceptable. */
export function passwordProblem(password: string, email?: string): string | undefined {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return `must have at least ${PASSWORD_MIN_LENGTH} characters`;
  if (length > PASSWORD_MAX_LENGTH) return `must have at most ${PASSWORD_MAX_LENGTH} characters`;
  const folded = password.toLowerCase();
  if (COMMON_PASSWORDS.has(folded)) return 'is one of the most common passwords';
  if (/^(.)\1*$/.test(folded)) return 'repeats one character';
  if (email && folded.includes(email.toLowerCase().split('@')[0]!)) return 'must not contain the e-mail address';
  return undefined;
}
