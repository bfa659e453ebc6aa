import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Compares two secrets without leaking, through timing, how much of them matched. */
export function constantTimeEqual(a: string | Buffer, b: string | Buffer): boolean {
  const left = createHash('sha256').update(a).digest();
  const right = createHash('sha256').update(b).digest();
  return timingSafeEqual(left, right) && Buffer.byteLength(a) === Buffer.byteLength(b);
}

export function sha256(value: string | Buffer): Buffer {
  return createHash('sha256').update(value).digest();
}

export function hmacSha256(key: string | Buffer, value: string | Buffer): Buffer {
  return createHmac('sha256', key).update(value).digest();
}

export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

const SEALED_PREFIX = 'v1';

/** Encrypts a secret at rest with AES-256-GCM under the master key: `v1.<iv>.<tag>.<ciphertext>`. */
export function seal(masterKey: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', masterKey, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [SEALED_PREFIX, iv, cipher.getAuthTag(), ciphertext]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

export function unseal(masterKey: Buffer, sealed: string): string {
  const [version, iv, tag, ciphertext] = sealed.split('.');
  if (version !== SEALED_PREFIX || !iv || !tag || ciphertext === undefined) throw new Error('not a sealed secret');
  const decipher = createDecipheriv('aes-256-gcm', masterKey, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}

/** A value derived from the master key: stable for one installation, unknown to anyone without the key. */
export function deriveSecret(masterKey: Buffer, purpose: string, bytes = 32): Buffer {
  return hmacSha256(masterKey, `derive:${purpose}`).subarray(0, bytes);
}
