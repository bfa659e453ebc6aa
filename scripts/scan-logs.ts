/**
 * Searches log files (pino JSON lines, e.g. a whole test run written with `LOG_FILE`) for personal data and keys:
 * the demo's and the test fixtures' CPFs, e-mails, names and phones, and anything shaped like an API key, an e-mail
 * address, or a CPF or CNPJ with valid check digits. Prints each offending line (cut short) and exits 1 if any.
 *
 *   LOG_FILE=/tmp/suite.log npm test && node --import tsx scripts/scan-logs.ts /tmp/suite.log
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { isValidCnpj, isValidCpf } from '../src/brazil/documents.ts';

/** Values the demo seed and the fixtures use for buyers: none may reach a log line. */
const KNOWN_VALUES = [
  '52998224725', // the demo customer's CPF, also the fixtures' VALID_CPF
  '529.982.247-25',
  '11144477735',
  'cliente.demo@example.com',
  'Cliente Demo',
  '11987654321', // the demo customer's phone
];

const SHAPES: Array<[string, RegExp, (match: string) => boolean]> = [
  ['an API key', /(?<![A-Za-z0-9])ck_[0-9a-f]{16}_[A-Za-z0-9_-]{20,}/g, () => true],
  ['an e-mail address', /[A-Za-z0-9._%+-]+(?:@|%40)[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/g, () => true],
  ['a CPF', /(?<![0-9])[0-9]{3}\.?[0-9]{3}\.?[0-9]{3}-?[0-9]{2}(?![0-9])/g, (m) => isValidCpf(m.replace(/\D/g, ''))],
  ['a CNPJ', /(?<![0-9])[0-9]{14}(?![0-9])/g, (m) => isValidCnpj(m)],
];

async function scan(path: string): Promise<{ lines: number; findings: string[] }> {
  const findings: string[] = [];
  let lines = 0;
  for await (const line of createInterface({ input: createReadStream(path), crlfDelay: Infinity })) {
    lines++;
    const found = [
      ...KNOWN_VALUES.filter((value) => line.includes(value)).map((value) => `"${value}"`),
      ...SHAPES.flatMap(([what, shape, confirmed]) =>
        [...line.matchAll(shape)].some((match) => confirmed(match[0])) ? [what] : [],
      ),
    ];
    if (found.length) findings.push(`${path}:${lines}: ${found.join(', ')}: ${line.slice(0, 300)}`);
  }
  return { lines, findings };
}

const paths = process.argv.slice(2).length ? process.argv.slice(2) : [process.env.LOG_FILE ?? ''];
if (!paths[0]) {
  console.error('usage: node --import tsx scripts/scan-logs.ts FILE… (or set LOG_FILE)');
  process.exit(2);
}
let total = 0;
const findings: string[] = [];
for (const path of paths) {
  const result = await scan(path);
  total += result.lines;
  findings.push(...result.findings);
}
for (const finding of findings.slice(0, 50)) console.log(finding);
console.log(`${total} log lines scanned, ${findings.length} with personal data or a key`);
process.exit(findings.length ? 1 : 0);
