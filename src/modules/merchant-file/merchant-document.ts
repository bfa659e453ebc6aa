import { Ajv, type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import { parseDocument } from 'yaml';
import { VISIBLE_CHARACTER } from '../../http/schemas.ts';
import { documentInputProblems } from './merchant-document.input.ts';
import { documentProblems, type Problem } from './merchant-document.rules.ts';
import { MerchantDocumentSchema, type MerchantDocument } from './merchant-document.schema.ts';

export type * from './merchant-document.schema.ts';

/** Every problem of a document, one `path: message` line each; carries no stack trace into the message. */
export class MerchantDocumentError extends Error {
  override readonly name = 'MerchantDocumentError';
  constructor(
    readonly problems: readonly Problem[],
    readonly fileName?: string,
  ) {
    const heading = `invalid merchant document${fileName ? ` ${fileName}` : ''}`;
    super([heading, ...problems.map((problem) => `  ${problem.path}: ${problem.message}`)].join('\n'));
  }
}

const ajv = new Ajv({ allErrors: true, coerceTypes: false, strict: true });
(addFormats as unknown as (ajv: Ajv) => void)(ajv);
const validateSchema = ajv.compile<MerchantDocument>(MerchantDocumentSchema);

/** Parses YAML (JSON is valid YAML) and validates it; throws MerchantDocumentError listing every problem. */
export function parseMerchantDocument(text: string, fileName?: string): MerchantDocument {
  const parsed = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (parsed.errors.length > 0) {
    const problems = parsed.errors.map((error) => ({
      path: yamlPosition(error.linePos?.[0]),
      message: firstLine(error.message),
    }));
    throw new MerchantDocumentError(problems, fileName);
  }
  return validateMerchantDocument(parsed.toJS(), fileName);
}

/**
 * Checks a value for input the database cannot store (normalising -0 to 0 in place), then against the
 * schema, then the cross-field rules; returns it typed or throws.
 */
export function validateMerchantDocument(value: unknown, fileName?: string): MerchantDocument {
  const unstorable = documentInputProblems(value);
  if (unstorable.length > 0) throw new MerchantDocumentError(unstorable, fileName);
  if (!validateSchema(value)) throw new MerchantDocumentError(schemaProblems(validateSchema.errors ?? []), fileName);
  const problems = documentProblems(value);
  if (problems.length > 0) throw new MerchantDocumentError(problems, fileName);
  return value;
}

function schemaProblems(errors: ErrorObject[]): Problem[] {
  const problems = errors.map(describeError);
  // allErrors may report one fault through several keywords; keep each line once.
  const seen = new Set<string>();
  return problems.filter((problem) => {
    const line = `${problem.path}: ${problem.message}`;
    return seen.has(line) ? false : (seen.add(line), true);
  });
}

function describeError(error: ErrorObject): Problem {
  const path = readablePath(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { path: joinPath(path, String(params.missingProperty)), message: 'is required' };
    case 'additionalProperties':
      return { path: joinPath(path, String(params.additionalProperty)), message: 'is not a known field' };
    case 'enum':
      return { path, message: `must be one of ${(params.allowedValues as unknown[]).join(', ')}` };
    case 'pattern':
      return { path, message: patternMessage(path, String(params.pattern)) };
    default:
      return { path, message: error.message ?? error.keyword };
  }
}

/** Names the rule for patterns a reader would not decode at a glance. */
function patternMessage(path: string, pattern: string): string {
  if (pattern === VISIBLE_CHARACTER) return 'must contain a visible character';
  if (/color$/.test(path)) return 'must be a colour as #rrggbb';
  if (/slug$/.test(path)) return 'must be lower-case letters, digits and inner hyphens (at most 63 characters)';
  if (/(starts_at|ends_at)$/.test(path)) return 'must be a time as HH:MM';
  if (/(image|logo|redirect_url|\.url)$/.test(path)) return 'must be an http or https URL';
  return `must match ${pattern}`;
}

/** `/companies/0/products/1/value` → `companies[0].products[1].value`. */
function readablePath(pointer: string): string {
  const segments = pointer
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  return (
    segments.reduce((path, segment) => (/^\d+$/.test(segment) ? `${path}[${segment}]` : joinPath(path, segment)), '') ||
    '(document)'
  );
}

function joinPath(path: string, key: string): string {
  return path === '' || path === '(document)' ? key : `${path}.${key}`;
}

/** The YAML message without its source excerpt and repeated position, which the path already gives. */
function firstLine(message: string): string {
  return message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
}

function yamlPosition(position: { line: number; col: number } | undefined): string {
  return position ? `line ${position.line}, column ${position.col}` : '(document)';
}
