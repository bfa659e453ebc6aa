/**
 * Writes the published OpenAPI document to a file (default openapi.json), for the linter and the client generator.
 * The app is built without touching a database: a pool that is never queried opens no connection.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { createLogger } from '../src/lib/logger.ts';

/** The server URL written into the document; fixed, so the generated client does not depend on the machine. */
export const DOCUMENT_PUBLIC_URL = 'http://127.0.0.1:3000';

export async function publishedDocument(): Promise<unknown> {
  const config = loadConfig({
    MASTER_KEY: randomBytes(32).toString('hex'),
    DATA_DIR: mkdtempSync(join(tmpdir(), 'checkout-openapi-')),
    PUBLIC_URL: DOCUMENT_PUBLIC_URL,
    LOG_LEVEL: 'silent',
  });
  const database = await openDatabase({ engine: 'postgres', url: 'postgres://unused@127.0.0.1:1/unused' });
  const app = await buildApp({ config, database, logger: createLogger('silent') });
  try {
    await app.ready();
    return app.swagger();
  } finally {
    await app.close();
    await database.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const target = process.argv[2] ?? 'openapi.json';
  writeFileSync(target, `${JSON.stringify(await publishedDocument(), null, 2)}\n`);
  console.log(`OpenAPI document written to ${target}`);
}
