/**
 * Reads the resource tables of the interface specification (`## Resources and their fields`) into field trees:
 * every field a resource lists, with the inner fields the specification names for objects and array items, and
 * the text that goes with each field (where a presence rule such as "only for pix" is written).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type SpecField = { name: string; text: string; fields: SpecField[] };
export type SpecResource = { name: string; text: string; fields: SpecField[] };

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The specification sits in the shared folder beside the repository (and beside CI's clone). */
export const SPEC_PATH = join(REPO_ROOT, '..', 'shared', 'spec', 'interface-spec.md');

/** Splits at commas outside parentheses and braces. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of text) {
    if (char === '(' || char === '{') depth++;
    if (char === ')' || char === '}') depth--;
    if (char === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += char;
  }
  parts.push(current);
  return parts.map((part) => part.trim()).filter(Boolean);
}

/** `name rest…` items of a list such as `id integer, name string, address {street, city}`. */
function parseList(text: string): SpecField[] {
  return splitTopLevel(text.replace(/`/g, '').replace(/\.$/, '')).flatMap((item) => {
    const name = /^[a-z_][a-z0-9_]*/.exec(item)?.[0];
    if (!name) return [];
    return [{ name, text: item, fields: innerFields(item.slice(name.length)) }];
  });
}

/** The inner fields a type text names: `object {a, b}`, `{a, b}`, `object: a, b`, `array: a, b`. */
function innerFields(type: string): SpecField[] {
  const braces = /^\s*(?:object\s*)?\{([^}]*)\}/.exec(type);
  if (braces) return parseList(braces[1]!);
  const colon = /^\s*(?:object|array):\s*(.*)$/.exec(type);
  if (colon) return parseList(colon[1]!);
  return [];
}

function parseSection(name: string, body: string[]): SpecResource {
  const text = body.join('\n');
  const fields: SpecField[] = [];
  const rows = body.filter((line) => line.startsWith('|') && !/^\|\s*-/.test(line));
  if (rows.length) {
    for (const row of rows.slice(1)) {
      const [names, type = '', ...rest] = row
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim());
      const cellText = [type, ...rest].join(' | ');
      for (const fieldName of splitTopLevel(names!)) {
        fields.push({ name: fieldName, text: cellText, fields: innerFields(type) });
      }
    }
  } else {
    const paragraph = body.find((line) => line.trim() && !line.startsWith('-'));
    if (paragraph) fields.push(...parseList(paragraph.replace(/\band\b(?![^({]*[)}])/g, ',')));
  }
  // `- customer: a, b` and `- products item: a, b` give the inner fields of a listed field.
  for (const line of body) {
    const bullet = /^- ([a-z_]+)(?: item)?: (.*)$/.exec(line);
    const field = bullet && fields.find((candidate) => candidate.name === bullet[1]);
    if (field) field.fields = parseList(bullet[2]!.replace(/\s*\([^)]*\)\s*$/, ''));
  }
  return { name, text, fields };
}

/** Every resource section, by the first word of its heading (`CartShow`, `OrderData`, `Coupon`…). */
export function readSpecResources(path = SPEC_PATH): Map<string, SpecResource> {
  const markdown = readFileSync(path, 'utf8');
  const start = markdown.indexOf('## Resources and their fields');
  const end = markdown.indexOf('\n## ', start + 1);
  const lines = markdown.slice(start, end).split('\n');
  const resources = new Map<string, SpecResource>();
  let heading: string | undefined;
  let body: string[] = [];
  const close = () => {
    if (heading) resources.set(heading, parseSection(heading, body));
  };
  for (const line of lines) {
    const match = /^### (\S+)/.exec(line);
    if (match) {
      close();
      heading = match[1]!;
      body = [];
    } else if (heading) body.push(line);
  }
  close();
  // The checkout-page product is described below the CheckoutPageShow table, outside it.
  const show = resources.get('CheckoutPageShow');
  const productLine = show?.text.split('\n').find((line) => line.startsWith('Checkout-page product:'));
  const products = show?.fields.find((field) => field.name === 'products');
  if (productLine && products) products.fields = parseList(productLine.slice('Checkout-page product:'.length));
  return resources;
}
