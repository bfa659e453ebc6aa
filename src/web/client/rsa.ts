/**
 * RSA PKCS#1 v1.5 encryption (type 2 padding) for gateway_c's card hash. WebCrypto offers only RSA-OAEP
 * for encryption, so this is the textbook operation on BigInt over the PEM key's modulus and exponent.
 */

type Der = { tag: number; start: number; end: number };

function readDer(bytes: Uint8Array, offset: number): Der {
  const tag = bytes[offset]!;
  let length = bytes[offset + 1]!;
  let start = offset + 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    length = 0;
    for (let index = 0; index < count; index += 1) length = length * 256 + bytes[start + index]!;
    start += count;
  }
  return { tag, start, end: start + length };
}

function bigIntOf(bytes: Uint8Array): bigint {
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  return value;
}

/** Modulus and exponent of an SPKI ("BEGIN PUBLIC KEY") or PKCS#1 ("BEGIN RSA PUBLIC KEY") PEM. */
export function parseRsaPublicKey(pem: string): { n: bigint; e: bigint; size: number } {
  const base64 = pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
  const bytes = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
  let sequence = readDer(bytes, 0);
  const first = readDer(bytes, sequence.start);
  if (first.tag === 0x30) {
    // SPKI: SEQUENCE { AlgorithmIdentifier, BIT STRING (one unused-bits byte) { RSAPublicKey } }
    const bitString = readDer(bytes, first.end);
    sequence = readDer(bytes, bitString.start + 1);
  }
  const modulus = readDer(bytes, sequence.start);
  const exponent = readDer(bytes, modulus.end);
  let modulusBytes = bytes.subarray(modulus.start, modulus.end);
  while (modulusBytes[0] === 0) modulusBytes = modulusBytes.subarray(1);
  return {
    n: bigIntOf(modulusBytes),
    e: bigIntOf(bytes.subarray(exponent.start, exponent.end)),
    size: modulusBytes.length,
  };
}

function modPow(base: bigint, exponent: bigint, modulus: bigint): bigint {
  let result = 1n;
  let factor = base % modulus;
  for (let rest = exponent; rest > 0n; rest >>= 1n) {
    if (rest & 1n) result = (result * factor) % modulus;
    factor = (factor * factor) % modulus;
  }
  return result;
}

/** 0x00 0x02 <non-zero random padding> 0x00 <message>, raised to e mod n; the result is base64. */
export function encryptPkcs1v15(pem: string, message: Uint8Array): string {
  const { n, e, size } = parseRsaPublicKey(pem);
  if (message.length > size - 11) throw new RangeError('message too long for the key');
  const block = new Uint8Array(size);
  block[1] = 2;
  const padding = block.subarray(2, size - message.length - 1);
  crypto.getRandomValues(padding);
  for (let index = 0; index < padding.length; index += 1) {
    while (padding[index] === 0) padding[index] = crypto.getRandomValues(new Uint8Array(1))[0]!;
  }
  block.set(message, size - message.length);
  let cipher = modPow(bigIntOf(block), e, n);
  const out = new Uint8Array(size);
  for (let index = size - 1; index >= 0; index -= 1) {
    out[index] = Number(cipher & 0xffn);
    cipher >>= 8n;
  }
  return btoa(String.fromCharCode(...out));
}
