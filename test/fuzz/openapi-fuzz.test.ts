import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import type { Database } from '../../src/db/database.ts';
import { type RunningSandboxes, sandboxGatewayUrls, startSandboxes } from '../../src/gateways/sandbox/server.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { createEndpoint } from '../../src/modules/notifications/endpoints.service.ts';
import { bearer, LogCapture, testConfig } from '../support/app.ts';
import { publicTables, snapshot, type Snapshot } from '../support/db-snapshot.ts';
import { engines } from '../support/engines.ts';
import { stockTwoTenants, type StockedTenant } from '../security/two-tenants.ts';
import {
  answerProblems,
  Oracle,
  readOperations,
  type FuzzRequest,
  type Operation,
} from './support/openapi-operations.ts';
import { legalRequest, malformedRequest, requestUrl, type KnownValues } from './support/request-arbitraries.ts';

/**
 * Every operation of the served OpenAPI document, fuzzed over real HTTP with a valid key and an allowed
 * origin, so that validation is what is exercised. Phase one: requests the document says are invalid
 * (the oracle confirms each) must all be refused with a 4xx in a documented error format, leak nothing,
 * and leave the database exactly as it was. Phase two: requests the document accepts, with hostile
 * content, must never get a 5xx. FUZZ_RUNS scales the runs per operation (default 30 per engine).
 */
const RUNS = Number(process.env.FUZZ_RUNS || 30);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;

function knownValues(shop: StockedTenant, endpointId: string): KnownValues {
  const product = [shop.productId];
  return {
    '/products/{id}': { id: product },
    '/products/{id}/gateway_a_public_key': { id: product },
    '/checkout_pages': { product_ids: [product] },
    '/checkout_pages/{id}': { id: [shop.pageId] },
    '/checkout_pages/{id}/payments': { id: [shop.pageId], ids: [[shop.paymentUid]] },
    '/checkout_pages/{id}/card_hash_key': { id: [shop.pageId] },
    '/orders': { company_ids: [[shop.companyId]], cart_page_uuids: [[shop.cartPageId]] },
    '/orders/{id}': { id: [shop.charge.id] },
    '/carts/{id}': { id: [shop.cartPageId, shop.cartId] },
    '/carts/{id}/payments': { id: [shop.cartId] },
    '/carts/{id}/pay': { id: [shop.cartId] },
    '/carts/{id}/card_hash_key': { id: [shop.cartId] },
    '/charges/{id}': { id: [shop.charge.uid] },
    '/charges/{id}/last_payment': { id: [shop.charge.uid] },
    '/charges/{id}/pay': { id: [shop.charge.uid] },
    '/charges/{id}/card_hash_key': { id: [shop.charge.uid] },
    '/payment_plans': {
      checkout_page_id: [shop.pageId],
      charge_id: [shop.charge.uid],
      cart_id: [shop.cartId],
      cart_page_id: [shop.cartPageId],
      coupon: [shop.couponCode],
      products: [{ [shop.productId]: 1 }],
    },
    '/coupons/{code}/validate': { code: [shop.couponCode], product_id: [String(shop.productId)] },
    '/companies/{id}/available_schedules': { id: [String(shop.companyId)] },
    '/payments/{id}/refund': { id: [shop.paymentId] },
    '/notification_endpoints/{id}': { id: [endpointId] },
    '/notification_endpoints/{id}/rotate_secret': { id: [endpointId] },
    '/notification_endpoints/{id}/deliveries': { id: [endpointId] },
    '/webhooks/{company_id}/gateway_b': { company_id: [shop.companyId] },
    '/webhooks/{company_id}/bank': { company_id: [shop.companyId] },
    body: {
      checkout_page_id: [shop.pageId],
      payment_plan_id: [
        `${shop.pixPlanId}-1`,
        `${shop.boletoPlanId}-1`,
        `${shop.cardPlanId}-1`,
        `${shop.cardPlanId}-3`,
        shop.pixPlanId,
      ],
      products: [[{ id: shop.productId, quantity: 1 }]],
      main_product_id: product,
      product_id: product,
      id: product,
      customer_id: [shop.customerId, String(shop.customerId)],
      company_id: [shop.companyId],
      coupon: [shop.couponCode],
      offer: [shop.offerToken],
      email: ['fuzz@example.com'],
      // Tokens the sandboxes never issued: a payment with one must be refused, not fail.
      credit_card_0_token: ['tok_never_issued', '999_bm90LWEtY2FyZC1oYXNo'],
      confirmation_token_id: ['ctoken_never_issued'],
      customer_email: ['fuzz@example.com'],
    },
  };
}

type Tally = { requests: number; byStatus: Map<number, number> };

async function send(base: string, request: FuzzRequest): Promise<{ status: number; body: string }> {
  const headers: Record<string, string> = {
    ...request.headers,
    ...(request.body?.contentType ? { 'content-type': request.body.contentType } : {}),
  };
  const response = await fetch(requestUrl(base, request), {
    method: request.operation.method,
    headers,
    ...(request.body ? { body: request.body.raw } : {}),
  });
  return { status: response.status, body: await response.text() };
}

for (const engine of engines()) {
  describe(`OpenAPI fuzzing on ${engine.name}`, { timeout: 600_000 }, () => {
    let database: Database;
    let app: FastifyInstance;
    let sandboxes: RunningSandboxes;
    let base: string;
    let operations: Operation[];
    let known: KnownValues;
    let headers: Record<string, string>;
    let tables: string[];
    let untouched: Snapshot;
    const malformed: Tally = { requests: 0, byStatus: new Map() };
    const legal: Tally = { requests: 0, byStatus: new Map() };
    const logs = new LogCapture();

    before(async () => {
      database = await engine.open();
      sandboxes = await startSandboxes({ port: 0, webhookTargets: () => undefined });
      const config = testConfig();
      const gatewayUrls = sandboxGatewayUrls(sandboxes);
      app = await buildApp({ config, database, logger: createLogger('warn', logs), gatewayUrls });
      base = await app.listen({ port: 0, host: '127.0.0.1' });
      const { alpha } = await stockTwoTenants(database, config);
      // An endpoint of the key's account, so that its routes are reached with a real id too.
      const { endpoint } = await createEndpoint(
        database.db,
        config.masterKey,
        { accountId: alpha.accountId, url: 'https://hooks.example.com/fuzz' },
        new Date(),
      );
      known = knownValues(alpha, endpoint.id);
      headers = { ...bearer(alpha.apiKey), ...alpha.origin };
      const document = await (await fetch(`${base}/api/v1/openapi.json`)).json();
      operations = readOperations(document as Parameters<typeof readOperations>[0]);
      assert.ok(operations.length >= 30, `${operations.length} operations in the document`);
      assert.equal((await fetch(`${base}/api/v1/orders`, { headers })).status, 200); // the key's first use is recorded before the snapshot
      tables = await publicTables(database);
      untouched = await snapshot(database, tables);
    });
    after(async () => {
      await app.close();
      await sandboxes.close();
      await database.close();
    });

    const count = (tally: Tally, status: number) => {
      tally.requests++;
      tally.byStatus.set(status, (tally.byStatus.get(status) ?? 0) + 1);
    };

    test('phase one: every operation refuses what its document refuses, in a documented format, leaking nothing', async (t) => {
      for (const operation of operations) {
        const oracle = new Oracle(operation);
        let invalid = 0;
        await fc.assert(
          fc.asyncProperty(malformedRequest(operation, known, headers), async (request) => {
            const why = oracle.whyInvalid(request);
            fc.pre(why !== undefined);
            invalid++;
            const answer = await send(base, request);
            count(malformed, answer.status);
            const problems = answerProblems(operation, answer.status, answer.body, why);
            assert.deepEqual(
              problems,
              [],
              `${operation.key} ${requestUrl('', request)} ${request.body?.raw.slice(0, 200) ?? ''} → ${answer.status} ${answer.body.slice(0, 300)}`,
            );
          }),
          { numRuns: RUNS, maxSkipsPerRun: 20, ...(SEED !== undefined ? { seed: SEED } : {}) },
        );
        assert.ok(invalid >= RUNS, `${operation.key}: only ${invalid} invalid requests were generated`);
      }
      t.diagnostic(
        `${malformed.requests} malformed requests over ${operations.length} operations: ${summary(malformed)}`,
      );
    });

    test('phase one left the database exactly as it was', async () => {
      assert.ok(malformed.requests > 0);
      assert.deepEqual(await snapshot(database, tables), untouched);
    });

    test('phase two: requests the document accepts, with hostile content, never get a 5xx', async (t) => {
      for (const operation of operations) {
        const oracle = new Oracle(operation);
        await fc.assert(
          fc.asyncProperty(legalRequest(operation, known, headers), async (request) => {
            fc.pre(oracle.whyInvalid(request) === undefined);
            const answer = await send(base, request);
            count(legal, answer.status);
            assert.deepEqual(
              answerProblems(operation, answer.status, answer.body, undefined),
              [],
              `${operation.key} ${requestUrl('', request)} ${request.body?.raw.slice(0, 300) ?? ''} → ${answer.status} ${answer.body.slice(0, 300)}`,
            );
          }),
          {
            numRuns: Math.max(5, Math.round(RUNS / 3)),
            maxSkipsPerRun: 50,
            ...(SEED !== undefined ? { seed: SEED } : {}),
          },
        );
      }
      t.diagnostic(`${legal.requests} legal requests with hostile content: ${summary(legal)}`);
      t.diagnostic(`fuzzing on ${engine.name}: ${malformed.requests + legal.requests} requests in all`);
      assert.equal(logs.lines.filter((line) => line.includes('"level":50')).length, 0, 'no unhandled error was logged');
    });
  });
}

function summary(tally: Tally): string {
  return [...tally.byStatus]
    .sort(([a], [b]) => a - b)
    .map(([status, n]) => `${status}×${n}`)
    .join(', ');
}
