import { MAX_INPUT_DEPTH, unstorableText } from '../../http/input-guard.ts';
import type { Problem } from './merchant-document.rules.ts';

/**
 * Values a merchant file can carry (YAML `.inf`, `.nan`, a `\0` or `\uD800` escape) that the database cannot
 * store as written, checked everywhere in the document, free-form `settings`, `menus` and `integrations`
 * included, with the same string rule as the HTTP input guard:
 * - a string or object key with the NUL character or an unpaired UTF-16 surrogate;
 * - a number that is not finite (JSON has no Infinity or NaN: jsonb would store null);
 * - nesting deeper than MAX_INPUT_DEPTH.
 *
 * `-0` is rewritten to `0` in place (this is the one place the document is normalised): the database
 * stores 0, and a -0 kept in the document would make every re-apply see a change.
 */
export function documentInputProblems(document: unknown): Problem[] {
  const problems: Problem[] = [];
  walk(document, '', 0, (path, message) => problems.push({ path: path || '(document)', message }));
  return problems;
}

function walk(value: unknown, path: string, depth: number, report: (path: string, message: string) => void): unknown {
  if (typeof value === 'string') {
    const problem = unstorableText(value);
    if (problem) report(path, `must not contain ${problem}`);
    return value;
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) report(path, `must be a finite number, not ${value}`);
    return Object.is(value, -0) ? 0 : value;
  }
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_INPUT_DEPTH) {
    report(path, `is nested more than ${MAX_INPUT_DEPTH} levels deep`);
    return value;
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      const normalised = walk(item, `${path}[${i}]`, depth + 1, report);
      if (!Object.is(normalised, item)) value[i] = normalised;
    });
    return value;
  }
  const record = value as Record<string, unknown>;
  for (const [key, item] of Object.entries(record)) {
    const keyProblem = unstorableText(key);
    // The key itself is not echoed: it is the unstorable text.
    if (keyProblem) {
      report(path, `has a key with ${keyProblem}`);
      continue;
    }
    const normalised = walk(item, path ? `${path}.${key}` : key, depth + 1, report);
    if (!Object.is(normalised, item)) record[key] = normalised;
  }
  return value;
}
