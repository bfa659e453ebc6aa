/**
 * GET /payment_plans under load, against a bare Fastify route answering a JSON body of the same size
 * in the same process. PostgreSQL only (DATABASE_URL); run with
 * `DATABASE_URL=postgres://… node --import tsx bench/payment-plans.bench.ts`.
 */
import { pathToFileURL } from 'node:url';
import Fastify from 'fastify';
import { createPricingMerchant } from '../test/support/pricing-fixtures.ts';
import { freshBenchDatabase, listenApp, measure, printTable, type Measurement } from './harness.ts';

export type PaymentPlansBenchResult = { plans: Measurement; bare: Measurement; ratio: number; target: number; bodyBytes: number };

const TARGET_RATIO = 0.3;

export async function run(options: { seconds?: number; connections?: number } = {}): Promise<PaymentPlansBenchResult> {
  if (!process.env.DATABASE_URL) throw new Error('DATABASE_URL is required: the benchmark runs on PostgreSQL');
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

    const load = { seconds: options.seconds ?? 5, connections: options.connections ?? 10 };
    const plans = await measure('GET /payment_plans (checkout page, 2 products, coupon)', { url: `${url}${path}`, headers, ...load });
    const bareRun = await measure(`bare Fastify route, same ${body.length}-byte JSON`, { url: `${bareUrl}/bare`, ...load });
    const result = { plans, bare: bareRun, ratio: Number((plans.reqPerSec / bareRun.reqPerSec).toFixed(3)), target: TARGET_RATIO, bodyBytes: body.length };
    printTable('GET /payment_plans against a bare route', [plans, bareRun]);
    console.log(`ratio ${result.ratio} (target ≥ ${TARGET_RATIO}: ${result.ratio >= TARGET_RATIO ? 'met' : 'NOT met'}); body ${body.length} bytes`);
    return result;
  } finally {
    await bare.close();
    await app.close();
    await drop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await run();
