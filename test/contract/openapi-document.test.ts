import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { OPERATIONS } from '../../src/http/openapi-operations.ts';
import { OrderListQuery } from '../../src/modules/orders/orders.schemas.ts';
import { publishedDocument } from '../../scripts/openapi-document.ts';

type Operation = {
  operationId?: string;
  summary?: string;
  description?: string;
  security?: Record<string, string[]>[];
  parameters?: { name: string; schema: Record<string, unknown> }[];
};
type Document = { paths: Record<string, Record<string, Operation>> };

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

describe('the published OpenAPI document', () => {
  let document: Document;
  const operations = () =>
    Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => METHODS.includes(method))
        .map(([method, operation]) => ({ key: `${method.toUpperCase()} ${path}`, operation })),
    );

  before(async () => {
    document = (await publishedDocument()) as Document;
  });

  test('names and summarises every operation, each name once, and the table lists no operation that is gone', () => {
    const ids = new Set<string>();
    for (const { key, operation } of operations()) {
      assert.ok(operation.summary, `${key} has no summary`);
      assert.ok(operation.operationId, `${key} has no operationId`);
      assert.ok(!ids.has(operation.operationId), `${key}: operationId ${operation.operationId} used twice`);
      ids.add(operation.operationId);
    }
    const documented = new Set(operations().map(({ key }) => key));
    assert.deepEqual(
      Object.keys(OPERATIONS).filter((key) => !documented.has(key)),
      [],
    );
  });

  test('declares security on every operation: the key, or none with the rule that applies instead', () => {
    for (const { key, operation } of operations()) {
      assert.ok(Array.isArray(operation.security), `${key} declares no security`);
      if (operation.security.length) assert.deepEqual(operation.security, [{ apiKey: [] }], key);
      else assert.match(operation.description ?? '', /\*\*Access: (public, host-restricted|open)/, key);
    }
    const byKey = Object.fromEntries(operations().map(({ key, operation }) => [key, operation]));
    assert.deepEqual(byKey['GET /orders']!.security, [{ apiKey: [] }]);
    assert.deepEqual(byKey['POST /payments']!.security, []);
    assert.match(byKey['POST /payments']!.description!, /allows \(its `Origin`, else its `Referer`\)/);
    assert.match(byKey['POST /webhooks/topic']!.description!, /authenticates the sender/);
  });

  test('carries no validator-only keyword: date bounds are a sentence, and validation keeps them', () => {
    const text = JSON.stringify(document);
    assert.doesNotMatch(text, /formatMinimum|formatMaximum/);
    const initialDate = document.paths['/orders']!.get!.parameters!.find((p) => p.name === 'initial_date')!;
    assert.match(String(initialDate.schema.description), /from 1900-01-01 to 9999-12-31$/);
    // The validating schema is untouched by publishing.
    assert.equal((OrderListQuery.properties.initial_date as { formatMinimum?: string }).formatMinimum, '1900-01-01');
  });
});
