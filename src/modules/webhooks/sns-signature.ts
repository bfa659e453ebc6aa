import { createVerify, X509Certificate } from 'node:crypto';
import { isObject } from './payloads.ts';

export type TopicOptions = {
  /** Host patterns the signing certificate (and SubscribeURL) may come from; `*` matches one DNS label. */
  certHosts: string[];
  /** URL protocols allowed for those URLs (`https:` outside tests). */
  protocols: string[];
  /** TopicArns accepted; an empty list accepts none. */
  topicArns: string[];
  fetch: typeof fetch;
};

export function topicOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): TopicOptions {
  const list = (value: string | undefined) =>
    (value ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);
  const hosts = list(env.TOPIC_CERT_HOSTS);
  return {
    certHosts: hosts.length ? hosts : ['sns.*.amazonaws.com'],
    protocols: ['https:'],
    topicArns: list(env.TOPIC_ARNS),
    fetch: globalThis.fetch,
  };
}

const SIGNED_KEYS = {
  Notification: ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'],
  Confirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
};

/** `Key\nValue\n` for each signed key present, in the reference order. */
export function stringToSign(message: Record<string, unknown>): string {
  const keys = message.Type === 'Notification' ? SIGNED_KEYS.Notification : SIGNED_KEYS.Confirmation;
  return keys
    .filter((key) => typeof message[key] === 'string')
    .map((key) => `${key}\n${message[key] as string}\n`)
    .join('');
}

export function hostAllowed(url: string, options: Pick<TopicOptions, 'certHosts' | 'protocols'>): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (!options.protocols.includes(parsed.protocol)) return false;
  return options.certHosts.some((pattern) =>
    new RegExp(
      `^${pattern
        .split('*')
        .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('[a-z0-9-]+')}$`,
      'i',
    ).test(parsed.hostname),
  );
}

const certificates = new Map<string, string>();

/** The PEM at `url`, fetched once per URL (certificates are immutable per URL). */
async function certificateAt(url: string, options: TopicOptions): Promise<string> {
  const cached = certificates.get(url);
  if (cached) return cached;
  const response = await options.fetch(url, { redirect: 'error', signal: AbortSignal.timeout(5_000) });
  if (!response.ok) throw new Error(`certificate fetch answered ${response.status}`);
  const pem = await response.text();
  new X509Certificate(pem); // refuses anything that is not a certificate before it is cached
  certificates.set(url, pem);
  return pem;
}

/** True when the message is signed (SignatureVersion 1 SHA1withRSA, 2 SHA256withRSA) by a certificate from an allowed host. */
export async function verifySnsMessage(message: unknown, options: TopicOptions): Promise<boolean> {
  if (!isObject(message) || typeof message.Signature !== 'string' || typeof message.SigningCertURL !== 'string')
    return false;
  const algorithm =
    message.SignatureVersion === '1' ? 'RSA-SHA1' : message.SignatureVersion === '2' ? 'RSA-SHA256' : undefined;
  if (!algorithm) return false;
  const url = message.SigningCertURL;
  if (!hostAllowed(url, options) || !new URL(url).pathname.endsWith('.pem')) return false;
  let pem: string;
  try {
    pem = await certificateAt(url, options);
  } catch {
    return false;
  }
  return createVerify(algorithm)
    .update(stringToSign(message), 'utf8')
    .verify(new X509Certificate(pem).publicKey, message.Signature, 'base64');
}
