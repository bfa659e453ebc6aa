import { containsCardNumber } from './card-numbers.ts';

export const CENSOR = '[Redacted]';

const UUID = '[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}';
const TOKEN_CHARACTER = 'A-Za-z0-9_+=-';

/**
 * What a log line never carries, by shape. A UUID is matched first and kept: our ids are not personal data, and
 * its all-digit groups must not read as a phone number. Every alternative starts at a boundary (a lookbehind), so
 * a scan costs one pass over the text rather than one per position.
 */
const SHAPES = [
  `(?<uuid>(?<![0-9A-Za-z])${UUID}(?![0-9A-Za-z]))`,
  // API keys (`ck_…`) and other prefixed credentials: secret keys, tokens, webhook signing secrets.
  '(?<![0-9A-Za-z])(?:ck|sk|pk|rk|tok|whsec|secret|token|key)_[A-Za-z0-9_-]{6,}',
  '\\b(?:Bearer|Basic)\\s+[A-Za-z0-9._~+/=-]{6,}',
  '(?<![A-Za-z0-9])eyJ[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]*', // a JWT
  '(?<![0-9])[0-9]{2}\\.[0-9]{3}\\.[0-9]{3}/[0-9]{4}-[0-9]{2}(?![0-9])', // a formatted CNPJ
  '(?<![0-9])[0-9]{3}\\.[0-9]{3}\\.[0-9]{3}-[0-9]{2}(?![0-9])', // a formatted CPF
  '(?<![0-9])(?:\\+55\\s?)?\\(?[0-9]{2}\\)?\\s?9?[0-9]{4}-[0-9]{4}(?![0-9])', // a formatted phone number
  // 10 to 19 bare digits: a CPF (11), a CNPJ (14), a phone with its area code (10, 11) or country (12, 13), a card.
  '(?<![0-9])[0-9]{10,19}(?![0-9])',
  `(?<long>(?<![${TOKEN_CHARACTER}])[${TOKEN_CHARACTER}]{32,}(?![${TOKEN_CHARACTER}]))`,
];
const EMAIL_CHARACTER = "A-Za-z0-9.!#$%&'*+/=?^_`{|}~-";
const EMAIL = `(?<![${EMAIL_CHARACTER}])[${EMAIL_CHARACTER}]+@[A-Za-z0-9-]+(?:\\.[A-Za-z0-9-]+)+`;
/** Without the e-mail alternative unless the text has an `@`: it is the one that would scan ahead from every boundary. */
const SENSITIVE_SHAPES = new RegExp(SHAPES.join('|'), 'g');
const SENSITIVE_SHAPES_AND_EMAIL = new RegExp([EMAIL, ...SHAPES].join('|'), 'g');
/** Nothing shorter can hold one of the shapes: `9876-5432` and `ck_` with six characters are the shortest. */
const SHORTEST_SHAPE = 9;
const LETTER = /[A-Za-z]/;
const DIGIT = /[0-9]/;

/**
 * The text with personal data (e-mail addresses, CPF and CNPJ numbers, phone numbers) and anything shaped like a
 * credential (API keys, prefixed tokens and secrets, Authorization values, JWTs, long random strings mixing
 * letters and digits) replaced by `[Redacted]`. Names have no shape: they are masked by field (below).
 */
export function maskSensitiveText(text: string): string {
  if (text.length < SHORTEST_SHAPE) return text;
  const shapes = text.includes('@') ? SENSITIVE_SHAPES_AND_EMAIL : SENSITIVE_SHAPES;
  return text.replace(shapes, (match, ...rest) => {
    const groups = rest.at(-1) as { uuid?: string; long?: string };
    if (groups.uuid !== undefined) return match;
    // A long run of letters (a slug) or of digits only is not a random token.
    if (groups.long !== undefined && !(LETTER.test(match) && DIGIT.test(match))) return match;
    return CENSOR;
  });
}

/** True when a text holds anything `maskSensitiveText` would mask, or a card number. */
export function isSensitiveText(text: string): boolean {
  return text.length >= SHORTEST_SHAPE && (maskSensitiveText(text) !== text || containsCardNumber(text));
}

/**
 * Fields whose values are personal data with no shape of their own (a name, an address), or whose shape may vary
 * (a phone written with letters, a document with spaces): masked wherever such a field is logged.
 */
export const PERSONAL_FIELDS = new Set([
  'email',
  'customer_email',
  'auxiliary_emails',
  'name',
  'customer_name',
  'full_name',
  'first_name',
  'last_name',
  'holder_name',
  'card_holder_name',
  'social_reason',
  'phone',
  'customer_phone',
  'identification',
  'document',
  'cpf',
  'cnpj',
  'customer',
  'customer_address',
  'address',
  'street',
  'number',
  'complement',
  'neighborhood',
  'zipcode',
]);

/** Query parameters that hold credentials or personal data whatever their value looks like. */
const SENSITIVE_QUERY_PARAMETER =
  /token|key|secret|signature|password|offer|e-?mail|name|phone|identification|document|cpf|cnpj|customer|address|street|zipcode/i;
/** The free-text search: kept only when it is an order id or a uid, the two things it may name that are not personal. */
const SEARCH_PARAMETER = /^q$/i;
const KEPT_SEARCH = new RegExp(`^(?:[0-9]{1,9}|${UUID})$`);

/**
 * The request URL as it may be logged: a path segment or a query value holding personal data, a credential or a
 * card number (decoded first, so `ana%40example.com` counts) is replaced whole; so are the values of parameters
 * named for a credential or personal data, and `q` unless it is an order id or uid.
 */
export function redactUrl(rawUrl: string): string {
  const question = rawUrl.indexOf('?');
  const path = question < 0 ? rawUrl : rawUrl.slice(0, question);
  const maskedPath = path
    .split('/')
    .map((segment) => (isSensitiveText(decodeSafe(segment)) ? CENSOR : segment))
    .join('/');
  if (question < 0) return maskedPath;
  const query = rawUrl
    .slice(question + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const name = equals < 0 ? pair : pair.slice(0, equals);
      const decodedName = decodeSafe(name);
      if (isSensitiveText(decodedName)) return CENSOR;
      if (equals < 0) return pair;
      const value = decodeSafe(pair.slice(equals + 1));
      const masked =
        SENSITIVE_QUERY_PARAMETER.test(decodedName) ||
        (SEARCH_PARAMETER.test(decodedName) && value !== '' && !KEPT_SEARCH.test(value)) ||
        isSensitiveText(value);
      return masked ? `${name}=${CENSOR}` : pair;
    })
    .join('&');
  return `${maskedPath}?${query}`;
}

/** A URL component decoded as a query string is (`+` is a space); left as is when it is not valid percent-encoding. */
function decodeSafe(component: string): string {
  if (!component.includes('%') && !component.includes('+')) return component;
  try {
    return decodeURIComponent(component.replaceAll('+', ' '));
  } catch {
    return component;
  }
}
