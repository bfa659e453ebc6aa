import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { generateSchemaSource } from '../../scripts/db-types.ts';

test('src/db/schema.ts matches the migrations (run `npm run db:types` after changing one)', async () => {
  const committed = readFileSync(new URL('../../src/db/schema.ts', import.meta.url), 'utf8');
  assert.equal(committed, await generateSchemaSource());
});
