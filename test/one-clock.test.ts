import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ESLint } from 'eslint';

const root = join(import.meta.dirname, '..');

/** The lint messages of `code` as if it were the file at `path` (relative to the project). */
async function lint(path: string, code: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: root });
  const [result] = await eslint.lintText(code, { filePath: join(root, path) });
  return result!.messages.filter((message) => message.ruleId === 'no-restricted-syntax').map((m) => m.message);
}

/** The modules read the time from the app's clock: eslint.config.js refuses the system's clock there. */
describe('one clock', () => {
  test("a module reading the system's clock fails the lint, with what to do instead", async () => {
    const messages = await lint(
      'src/modules/orders/clock-probe.ts',
      'export const at = () => new Date();\nexport const ms = () => Date.now();\n',
    );
    assert.deepEqual(messages, [
      "Take the time from the app's clock (a `now` or `clock` argument), not `new Date()`.",
      "Take the time from the app's clock (a `now` or `clock` argument), not `Date.now()`.",
    ]);
  });

  test('a date built from a value is no clock reading, and the edges keep the wall clock', async () => {
    assert.deepEqual(
      await lint('src/modules/orders/clock-probe.ts', 'export const at = (iso: string) => new Date(iso);\n'),
      [],
    );
    assert.deepEqual(await lint('src/main.ts', 'export const processClock = () => new Date();\n'), []);
  });
});
