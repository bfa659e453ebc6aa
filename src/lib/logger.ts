import pino, { type DestinationStream, type Logger } from 'pino';
import { redactCardNumbers } from './card-numbers.ts';

/** Header and field names whose values never reach a log line. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["gateway-b-signature"]',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.secret',
  '*.token',
  '*.api_key',
  '*.apiKey',
  '*.master_key',
  '*.authorization',
  '*.confirmation_token_id',
  '*.credit_card_0_token',
  '*.credit_card_1_token',
];

const SENSITIVE_QUERY_KEY = /token|key|secret|signature|password|offer/i;

/** The request URL with card numbers and the values of sensitive query parameters replaced. */
export function redactUrl(rawUrl: string): string {
  const url = redactCardNumbers(rawUrl);
  const question = url.indexOf('?');
  if (question < 0) return url;
  const params = url
    .slice(question + 1)
    .split('&')
    .map((pair) => {
      const [name = '', ...rest] = pair.split('=');
      return rest.length && SENSITIVE_QUERY_KEY.test(decodeURIComponentSafe(name)) ? `${name}=[Redacted]` : pair;
    });
  return `${url.slice(0, question)}?${params.join('&')}`;
}

function decodeURIComponentSafe(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACTED_PATHS, censor: '[Redacted]' },
      serializers: {
        req: (req: { id: string; method: string; url: string; headers?: Record<string, unknown>; ip?: string }) => ({
          id: req.id,
          method: req.method,
          url: redactUrl(req.url),
          host: req.headers?.host,
          remoteAddress: req.ip,
        }),
        err: pino.stdSerializers.err,
      },
    },
    destination,
  );
}
