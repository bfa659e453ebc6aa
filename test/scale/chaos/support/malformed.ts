/**
 * Malformed requests, sent among the well-formed ones: broken JSON, wrong media types, wrong types and
 * ranges, unknown fields, raw card numbers, NUL characters, deep nesting, oversized bodies, unknown ids,
 * missing or forged credentials, and random JSON (fast-check) at the pay entry points. Each must get a 4xx.
 */

import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { Workload } from './operations.ts';

const API = '/api/v1';
type Malformed = {
  method: string;
  path: string;
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
};

const deep = (levels: number): unknown => (levels === 0 ? 1 : { a: deep(levels - 1) });

export async function sendMalformed(work: Workload, op: string): Promise<void> {
  const merchant = work.random.pick(work.merchants);
  const key = { authorization: `Bearer ${merchant.apiKey}` };
  const page = merchant.pages.gateway_a;
  const plan = `${merchant.cardPlanId}-1`;
  const knownCharge = work.traffic.of('charge_create').find((exchange) => exchange.status === 201)?.body.uid;
  const knownCart = work.traffic.of('cart_create').find((exchange) => exchange.status === 201)?.body.id;
  const randomJson = fc.sample(fc.jsonValue({ maxDepth: 4 }), { numRuns: 1, seed: work.random.int(1, 2 ** 30) })[0];
  const cases: Array<() => Malformed> = [
    () => ({ method: 'POST', path: `${API}/payments`, raw: '{"checkout_page_id": "' }),
    () => ({ method: 'POST', path: `${API}/payments`, body: randomJson }),
    () => ({ method: 'POST', path: `${API}/charges/${knownCharge ?? randomUUID()}/pay`, body: randomJson }),
    () => ({ method: 'POST', path: `${API}/carts/${knownCart ?? randomUUID()}/pay`, body: randomJson }),
    () => ({
      method: 'POST',
      path: `${API}/payments`,
      body: { checkout_page_id: page, payment_plan_id: plan, products: [{ id: -1, quantity: 0 }] },
    }),
    () => ({
      method: 'POST',
      path: `${API}/payments`,
      body: { checkout_page_id: page, payment_plan_id: plan, credit_card_0_token: '4111 1111 1111 1111' },
    }),
    () => ({
      method: 'POST',
      path: `${API}/payments`,
      raw: `{"checkout_page_id":"${page}","payment_plan_id":"${plan}","products":[{"id":1,"quantity":1e999}]}`,
    }),
    () => ({ method: 'POST', path: `${API}/payments`, body: { checkout_page_id: page, surprise: true } }),
    () => ({
      method: 'POST',
      path: `${API}/payments`,
      raw: 'checkout_page_id=1',
      headers: { 'content-type': 'text/plain' },
    }),
    () => ({
      method: 'POST',
      path: `${API}/payments`,
      body: { checkout_page_id: page, customer_email: 'a\u0000@b.c' },
    }),
    () => ({ method: 'POST', path: `${API}/payments`, body: { checkout_page_id: page, meta: deep(40) } }),
    () => ({ method: 'POST', path: `${API}/payments`, raw: `{"pad":"${'x'.repeat(1_100_000)}"}` }),
    () => ({ method: 'POST', path: `${API}/carts/not-a-uuid/pay`, body: { payment_plan_id: plan } }),
    () => ({ method: 'POST', path: `${API}/charges/${randomUUID()}/pay`, body: { payment_plan_id: plan } }),
    () => ({ method: 'POST', path: `${API}/payments/abc/refund`, headers: key, body: {} }),
    () => ({
      method: 'POST',
      path: `${API}/payments/${work.random.int(1, 10_000_000)}/refund`,
      headers: key,
      body: { amount: work.random.pick([-5, 0, 'ten', 0.001, 1e12, null]) },
    }),
    () => ({ method: 'POST', path: `${API}/payments/1/refund`, body: {} }),
    () => ({ method: 'GET', path: `${API}/orders?limit=1000`, headers: key }),
    () => ({ method: 'GET', path: `${API}/orders?status[]=bogus&initial_date=2024-13-45`, headers: key }),
    () => ({ method: 'GET', path: `${API}/orders`, headers: { authorization: 'Bearer ck_forged_0000' } }),
    () => ({
      method: 'POST',
      path: `${API}/carts/${merchant.cartPages.gateway_a}`,
      headers: key,
      body: { payment_method: 'credit_card', freight: -1, items: [{ id: merchant.productId, quantity: 0 }] },
    }),
    () => ({ method: 'POST', path: `${API}/orders`, headers: key, body: { items: [{ product_id: 0 }] } }),
    () => ({ method: 'GET', path: `${API}/payment_plans?cart_id=garbage` }),
    () => ({ method: 'POST', path: `${API}/webhooks`, body: randomJson }),
    () => ({
      method: 'POST',
      path: `${API}/webhooks/${merchant.companyId}/gateway_b`,
      headers: { 'stripe-signature': 't=1,v1=deadbeef' },
      body: { id: 'evt_forged', type: 'payment_intent.succeeded', data: { object: { id: 'pi_forged' } } },
    }),
    () => ({ method: 'POST', path: `${API}/webhooks/topic`, raw: 'not json at all' }),
    () => ({ method: 'PATCH', path: `${API}/payments`, body: {} }),
  ];
  const request = work.random.pick(cases)();
  await work.traffic.send('malformed', request.method, request.path, {
    op,
    headers: request.headers,
    ...(request.raw !== undefined ? { raw: request.raw } : { body: request.body }),
    facts: { case: `${request.method} ${request.path.split('?')[0]!.replace(/[0-9a-f-]{36}|\d+/g, ':id')}` },
  });
}
