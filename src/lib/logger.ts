import pino, { type DestinationStream, type Logger } from 'pino';
import { CENSOR, maskSensitiveText, PERSONAL_FIELDS, redactUrl } from './log-masking.ts';

export { redactUrl } from './log-masking.ts';

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
 * modified: what needs censoring is copied. Secret and personal fields are censored by name; other text, at the
 * top and one level down in plain objects, is masked by shape (`maskSensitiveText`).
 */
export function redactFields(object: Record<string, unknown>): Record<string, unknown> {
  let result = object;
  for (const key of Object.keys(object)) {
    const value = object[key];
    const redacted =
      SENSITIVE_FIELDS.includes(key) || isPersonalField(key, value)
        ? CENSOR
        : typeof value === 'string'
          ? maskSensitiveText(value)
          : typeof value === 'object' && value !== null
            ? redactNested(value)
            : value;
    if (redacted === value) continue;
    if (result === object) result = { ...object };
    result[key] = redacted;
  }
  return result;
}

/** A personal field holds text or a record (a customer, an address); a count or a flag of that name is not personal. */
function isPersonalField(key: string, value: unknown): boolean {
  return PERSONAL_FIELDS.has(key) && (typeof value === 'string' || (typeof value === 'object' && value !== null));
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
  // Own fields of a plain object only: a request or an Error is logged through its serializer.
  const prototype = Object.getPrototypeOf(value) as object | null;
  if (prototype === Object.prototype || prototype === null || Array.isArray(value)) {
    for (const [name, item] of Object.entries(value)) {
      if (replacements?.[name] !== undefined) continue;
      if (isPersonalField(name, item)) (replacements ??= {})[name] = CENSOR;
      else if (typeof item === 'string') {
        const masked = maskSensitiveText(item);
        if (masked !== item) (replacements ??= {})[name] = masked;
      }
    }
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

/** An error as pino serialises it, with its message, stack and any other text (a driver's `detail`) masked. */
function serializeError(error: Error): Record<string, unknown> {
  const serialized = pino.stdSerializers.err(error) as unknown as Record<string, unknown>;
  for (const [name, value] of Object.entries(serialized))
    if (typeof value === 'string') serialized[name] = maskSensitiveText(value);
  return serialized;
}

/** One append-only destination per file, shared by every logger of the process. */
const logFiles = new Map<string, DestinationStream>();
function logFile(path: string): DestinationStream {
  let stream = logFiles.get(path);
  if (!stream) logFiles.set(path, (stream = pino.destination({ dest: path, append: true, mkdir: true, sync: true })));
  return stream;
}

/**
 * A logger at `level` writing to `destination` (stdout by default). With `file` (`LOG_FILE`), every line at every
 * level is also appended to that file, whatever `level` says: a whole test run can be kept and searched
 * (`scripts/scan-logs.ts`).
 */
export function createLogger(
  level: string,
  destination?: DestinationStream,
  file: string | undefined = process.env.LOG_FILE || undefined,
): Logger {
  const output = file
    ? pino.multistream([
        ...(level === 'silent' ? [] : [{ level: level as pino.Level, stream: destination ?? pino.destination(1) }]),
        { level: 'trace' as const, stream: logFile(file) },
      ])
    : destination;
  const logger = pino(
    {
      level: file ? 'trace' : level,
      formatters: { log: redactFields, bindings: redactFields },
      hooks: {
        // The message itself: constant text as a rule, masked in case one quotes what it should not.
        logMethod(args, method) {
          if (typeof args.at(-1) === 'string') args[args.length - 1] = maskSensitiveText(args.at(-1) as string);
          return method.apply(this, args);
        },
      },
      serializers: {
        req: (req: { id: string; method: string; url: string; headers?: Record<string, unknown>; ip?: string }) => ({
          id: req.id,
          method: req.method,
          url: redactUrl(req.url),
          host: req.headers?.host,
          remoteAddress: req.ip,
        }),
        err: serializeError,
      },
    },
    output as DestinationStream,
  );
  // pino applies the bindings formatter to the root only; children (every request's, every job's) are
  // censored here. Children inherit this method, so grandchildren are covered as well.
  const child = logger.child;
  logger.child = function redactedChild(this: Logger, bindings, options) {
    return child.call(this, redactFields(bindings), options);
  } as Logger['child'];
  return logger;
}
