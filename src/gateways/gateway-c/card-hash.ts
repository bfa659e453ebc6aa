import { constants, generateKeyPair, privateDecrypt, publicEncrypt, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';

/** Card hash keys are single-use and live five minutes. */
export const CARD_HASH_KEY_LIFETIME_MS = 5 * 60_000;
// RSA-2048 with PKCS#1 v1.5 padding leaves 256 − 11 bytes for the message.
const MAX_PLAINTEXT_BYTES = 245;

export type CardHashFields = {
  number: string;
  holderName: string;
  expMonth: number | string;
  expYear: number | string;
  cvv: string;
};

/**
 * `card_number=…&card_holder_name=…&card_expiration_date=MMYY&card_cvv=…`, URL-encoded, number,
 * expiry and CVV reduced to digits: the text the browser library encrypts.
 */
export function cardHashPlaintext(card: CardHashFields): string {
  const digits = (value: string | number) => String(value).replace(/\D/g, '');
  const expiration = digits(card.expMonth).padStart(2, '0') + digits(card.expYear).slice(-2).padStart(2, '0');
  const fields = [
    ['card_number', digits(card.number)],
    ['card_holder_name', card.holderName],
    ['card_expiration_date', expiration],
    ['card_cvv', digits(card.cvv)],
  ];
  return fields.map(([name, value]) => `${name}=${encodeURIComponent(value!)}`).join('&');
}

/** What the browser library does: RSA PKCS#1 v1.5 under the served key, base64, prefixed by the key id. */
export function encryptCardHash(key: { id: number; public_key: string }, plaintext: string): string {
  const message = Buffer.from(plaintext, 'utf8');
  if (message.length > MAX_PLAINTEXT_BYTES)
    throw new RangeError(`a card hash holds at most ${MAX_PLAINTEXT_BYTES} bytes; shorten the holder name`);
  return `${key.id}_${publicEncrypt({ key: key.public_key, padding: constants.RSA_PKCS1_PADDING }, message).toString('base64')}`;
}

/**
 * RSA PKCS#1 v1.5 decryption. Node 20 refuses that padding for private decryption (CVE-2023-46809, the
 * Marvin timing attack) unless the process starts with --security-revert, so this decrypts without
 * padding and removes it here: 0x00 0x02, at least eight non-zero bytes, 0x00, then the message.
 * Every byte is visited and the checks are combined at the end, so no branch depends on where padding broke.
 */
export function decryptPkcs1v15(privateKey: KeyObject, ciphertext: Buffer): Buffer {
  const block = privateDecrypt({ key: privateKey, padding: constants.RSA_NO_PADDING }, ciphertext);
  let separator = 0;
  for (let index = 2; index < block.length; index += 1) {
    const isFirstZero = block[index] === 0 && separator === 0;
    separator = isFirstZero ? index : separator;
  }
  const wellFormed = block[0] === 0 && block[1] === 2 && separator >= 10;
  if (!wellFormed) throw new Error('the card hash is not PKCS#1 v1.5 encrypted with this key');
  return block.subarray(separator + 1);
}

export type CardFromHash = { number: string; holderName: string; expMonth: number; expYear: number; cvv: string };

/** The card fields of a decrypted card hash, or undefined when a field is missing or malformed. */
export function parseCardHashPlaintext(plaintext: string): CardFromHash | undefined {
  const fields = new URLSearchParams(plaintext);
  const number = fields.get('card_number') ?? '';
  const expiration = fields.get('card_expiration_date') ?? '';
  const cvv = fields.get('card_cvv') ?? '';
  const holderName = fields.get('card_holder_name') ?? '';
  if (!/^\d{13,19}$/.test(number) || !/^\d{4}$/.test(expiration) || !/^\d{3,4}$/.test(cvv) || holderName.trim() === '')
    return undefined;
  return {
    number,
    holderName,
    expMonth: Number(expiration.slice(0, 2)),
    expYear: 2000 + Number(expiration.slice(2)),
    cvv,
  };
}

type StoredKey = { privateKey: KeyObject; createdAt: Date; used: boolean };
export type CardHashKeyRecord = { id: number; public_key: string; date_created: string };
export type OpenedCardHash =
  { plaintext: string } | { refusal: 'malformed' | 'unknown_key' | 'used_key' | 'expired_key' | 'undecryptable' };

const generateRsaKeyPair = promisify(generateKeyPair);

/** The sandbox's card hash keys: it keeps each private half until the key is used or expires. */
export class CardHashKeys {
  readonly #keys = new Map<number, StoredKey>();
  #nextId = 1;

  async create(now: Date): Promise<CardHashKeyRecord> {
    const { publicKey, privateKey } = await generateRsaKeyPair('rsa', { modulusLength: 2048 });
    this.#forgetExpired(now);
    const id = this.#nextId++;
    this.#keys.set(id, { privateKey, createdAt: now, used: false });
    return {
      id,
      public_key: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      date_created: now.toISOString(),
    };
  }

  /** Decrypts a `<key id>_<base64>` card hash, spending the key whatever the outcome. */
  open(cardHash: string, now: Date): OpenedCardHash {
    const match = /^(\d{1,9})_([A-Za-z0-9+/]+={0,2})$/.exec(cardHash);
    if (!match) return { refusal: 'malformed' };
    const key = this.#keys.get(Number(match[1]));
    if (!key) return { refusal: 'unknown_key' };
    if (key.used) return { refusal: 'used_key' };
    key.used = true;
    if (now.getTime() - key.createdAt.getTime() > CARD_HASH_KEY_LIFETIME_MS) return { refusal: 'expired_key' };
    try {
      return { plaintext: decryptPkcs1v15(key.privateKey, Buffer.from(match[2]!, 'base64')).toString('utf8') };
    } catch {
      return { refusal: 'undecryptable' };
    }
  }

  #forgetExpired(now: Date): void {
    for (const [id, key] of this.#keys) {
      if (now.getTime() - key.createdAt.getTime() > 2 * CARD_HASH_KEY_LIFETIME_MS) this.#keys.delete(id);
    }
  }
}
