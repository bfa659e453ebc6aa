import pino, { type DestinationStream, type Logger } from 'pino';
import { redactCardNumbers } from './card-numbers.ts';

const CENSOR = '[Redacted]';

/** Field names whose values never reach a log line: at the top of a log object and one level down. */
const SENSITIVE_FIELDS = [
  'password',
  'secret',
  'token',
  'api_key',
  'apiKey',
  'master_key',
  'authorization',
  'confirmation_token_id',
  'credit_card_0_token',
  'credit_card_1_token',
];
/** Header names never logged, in the `headers` of any logged object (a request's, a response's). */
const SENSITIVE_HEADERS = ['authorization', 'cookie', 'set-cookie', 'gateway-b-signature', 'x-api-key'];

/** What the redaction covers, as pino paths (`*` is any top-level field). */
export const REDACTED_PATHS = [
  ...SENSITIVE_FIELDS,
  ...SENSITIVE_FIELDS.map((name) => `*.${name}`),
  ...SENSITIVE_HEADERS.map((name) => `*.headers["${name}"]`),
];

/**
 * Redaction in one pass over a log object's fields, run for every line (and child bindings). pino's own
 * `redact` option does the same by re-parsing each path on every line, which cost more than the rest
 * of a request's logging together; this keeps the rules and drops that cost. The logged object is never
 * modified: what needs censoring is copied.
 */
export function redactFields(object: Record<string, unknown>): Record<string, unknown> {
  let result = object;
  for (const key of Object.keys(object)) {
    const value = object[key];
    const redacted = SENSITIVE_FIELDS.includes(key)
      ? CENSOR
      : typeof value === 'object' && value !== null
        ? redactNested(value)
        : value;
    if (redacted === value) continue;
    if (result === object) result = { ...object };
    result[key] = redacted;
  }
  return result;
}

function redactNested(value: object): object {
  let replacements: Record<string, unknown> | undefined;
  for (const name of SENSITIVE_FIELDS)
    if ((value as Record<string, unknown>)[name] !== undefined) (replacements ??= {})[name] = CENSOR;
  const headers = (value as { headers?: unknown }).headers;
  if (typeof headers === 'object' && headers !== null && SENSITIVE_HEADERS.some((name) => name in headers)) {
    const censored = { ...(headers as Record<string, unknown>) };
    for (const name of SENSITIVE_HEADERS) if (name in censored) censored[name] = CENSOR;
    (replacements ??= {}).headers = censored;
  }
  return replacements ? copyWith(value, replacements) : value;
}

/**
 * A copy with some fields replaced. A plain object is spread; anything else (an Error, a request) is
 * shadowed: an object inheriting from it, so serializers still see an Error or a request.
 */
function copyWith(value: object, replacements: Record<string, unknown>): object {
  if (Array.isArray(value)) return Object.assign([...value], replacements);
  const prototype = Object.getPrototypeOf(value) as object | null;
  if (prototype === Object.prototype || prototype === null) return { ...value, ...replacements };
  const shadow = Object.create(value) as object;
  for (const [name, replacement] of Object.entries(replacements)) {
    Object.defineProperty(shadow, name, { value: replacement, enumerable: true, writable: true, configurable: true });
  }
  return shadow;
}

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
  const logger = pino(
    {
      level,
      formatters: { log: redactFields, bindings: redactFields },
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
  // pino applies the bindings formatter to the root only; children (every request's, every job's) are
  // censored here. Children inherit this method, so grandchildren are covered as well.
  const child = logger.child;
  logger.child = function redactedChild(this: Logger, bindings, options) {
    return child.call(this, redactFields(bindings), options);
  } as Logger['child'];
  return logger;
}
