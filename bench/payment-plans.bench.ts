/**
 * GET /payment_plans under load, against a bare Fastify route answering a JSON body of the same size
 * in the same process. PostgreSQL only (DATABASE_URL); run with
 * `DATABASE_URL=postgres://… npm run bench -- payment-plans`.
 */
import Fastify from 'fastify';
import { createPricingMerchant } from '../test/support/pricing-fixtures.ts';
import { freshBenchDatabase, isMain, listenApp, ratioRow, requirePostgres, type BenchResult } from './harness.ts';
import { httpLoad, measureInterleaved, printTable } from './load.ts';

const BENCHMARK = 'payment-plans';
const TARGET_RATIO = 0.3;

export async function run(options: { seconds?: number; connections?: number } = {}): Promise<BenchResult> {
  requirePostgres();
  const { database, drop } = await freshBenchDatabase();
  const { app, url } = await listenApp(database);
  const bare = Fastify({ logger: false });
  try {
    const merchant = await createPricingMerchant(database, ['bench.example']);
    const { course, ebook } = merchant.products;
    const path = `/api/v1/payment_plans?checkout_page_id=${merchant.page}&products[${course}]=2&products[${ebook}]=1&coupon=TEN`;
    const headers = { origin: 'https://bench.example' };
    const sample = await fetch(`${url}${path}`, { headers });
    const body = await sample.text();
    if (sample.status !== 200) throw new Error(`GET /payment_plans answered ${sample.status}: ${body}`);
    const payload = JSON.parse(body) as unknown;
    bare.get('/bare', async () => payload);
    const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' });

    const connections = options.connections ?? 10;
    const [plans, bareRun] = await measureInterleaved(
      [
        httpLoad('GET /payment_plans (checkout page, 2 products, coupon)', {
          url: `${url}${path}`,
          headers,
          connections,
        }),
        httpLoad(`bare Fastify route, same ${body.length}-byte JSON`, { url: `${bareUrl}/bare`, connections }),
      ],
      options.seconds ? { seconds: options.seconds } : {},
    );
    printTable('GET /payment_plans against a bare route', [plans, bareRun]);
    const row = ratioRow(BENCHMARK, plans, bareRun, TARGET_RATIO);
    console.log(`ratio ${row.ratio} (target ${row.target}: ${row.met ? 'met' : 'NOT met'}); body ${body.length} bytes`);
    return {
      benchmark: BENCHMARK,
      rows: [row],
      notes: [`payment-plans baseline: a bare Fastify route answering the same ${body.length}-byte JSON, no logging`],
    };
  } finally {
    await bare.close();
    await app.close();
    await drop();
  }
}

if (isMain(import.meta.url)) await run();
