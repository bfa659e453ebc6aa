/** The mixed load of the memory run: what a shop's buyers, its back office and its gateway do together. */
import { containsCardNumber } from '../src/lib/card-numbers.ts';

/** The fields of `checkout seed --demo --json` the load uses. */
export type DemoIds = {
  api_key: string;
  allowed_origin: string;
  checkout_pages: { ebook: string };
  products: { ebook: number };
  payment_plans: { card: number; pix: number };
  gateway_public_keys: { gateway_a: string };
};

export type MixedLoadCounts = {
  paymentPlans: number;
  ordersList: number;
  pixPayments: number;
  cardPayments: number;
  webhooks: number;
};

type Step = { kind: keyof MixedLoadCounts; run(): Promise<void> };

async function expectOk(response: Response, what: string): Promise<Response> {
  if (!response.ok) throw new Error(`${what} answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
  return response;
}

export async function driveMixedLoad(input: {
  base: string;
  gatewayA: string;
  demo: DemoIds;
  seconds: number;
  concurrency: number;
}): Promise<{ requests: MixedLoadCounts; requestsPerSecond: number; p50Ms: number; p99Ms: number }> {
  const { base, gatewayA, demo } = input;
  const api = `${base}/api/v1`;
  const browser = { origin: demo.allowed_origin };
  const json = { ...browser, 'content-type': 'application/json' };
  const waitingPix: string[] = [];
  let buyer = 0;
  const payBody = (plan: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      checkout_page_id: demo.checkout_pages.ebook,
      products: [{ id: demo.products.ebook, quantity: 1 }],
      customer_email: `buyer-${buyer++}@memory.example`,
      payment_plan_id: plan,
      ...extra,
    });

  const cardToken = async (): Promise<string> => {
    for (;;) {
      const res = await expectOk(
        await fetch(`${gatewayA}/tokens?appId=${demo.gateway_public_keys.gateway_a}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            type: 'card',
            card: {
              number: '4111111111111111',
              holder_name: 'MARIA DA SILVA',
              exp_month: 12,
              exp_year: 2031,
              cvv: '123',
            },
          }),
        }),
        'the gateway_a tokenizer',
      );
      const { id } = (await res.json()) as { id: string };
      // A random token can hold a digit run the raw-card check refuses; a browser would tokenize again.
      if (!containsCardNumber({ id })) return id;
    }
  };

  const steps: Step[] = [
    {
      kind: 'paymentPlans',
      run: async () =>
        void (
          await expectOk(
            await fetch(
              `${api}/payment_plans?checkout_page_id=${demo.checkout_pages.ebook}&products[${demo.products.ebook}]=1`,
              { headers: browser },
            ),
            'GET /payment_plans',
          )
        ).arrayBuffer(),
    },
    {
      kind: 'ordersList',
      run: async () =>
        void (
          await expectOk(
            await fetch(`${api}/orders?page=1`, { headers: { authorization: `Bearer ${demo.api_key}` } }),
            'GET /orders',
          )
        ).arrayBuffer(),
    },
    {
      kind: 'pixPayments',
      run: async () => {
        const res = await expectOk(
          await fetch(`${api}/payments`, {
            method: 'POST',
            headers: json,
            body: payBody(`${demo.payment_plans.pix}-1`),
          }),
          'POST /payments (pix)',
        );
        waitingPix.push(((await res.json()) as { payments: string[] }).payments[0]!);
      },
    },
    {
      kind: 'paymentPlans',
      run: async () =>
        void (
          await expectOk(
            await fetch(
              `${api}/payment_plans?checkout_page_id=${demo.checkout_pages.ebook}&products[${demo.products.ebook}]=1&coupon=DEMO10`,
              { headers: browser },
            ),
            'GET /payment_plans (coupon)',
          )
        ).arrayBuffer(),
    },
    {
      kind: 'cardPayments',
      run: async () =>
        void (
          await expectOk(
            await fetch(`${api}/payments`, {
              method: 'POST',
              headers: json,
              body: payBody(`${demo.payment_plans.card}-1`, { credit_card_0_token: await cardToken() }),
            }),
            'POST /payments (card)',
          )
        ).arrayBuffer(),
    },
    {
      // The sandbox confirms the Pix and delivers its signed webhook to the API over HTTP.
      kind: 'webhooks',
      run: async () => {
        const gatewayId = waitingPix.shift();
        if (gatewayId)
          await (
            await expectOk(
              await fetch(`${gatewayA}/sandbox/charges/${gatewayId}/confirm`, { method: 'POST' }),
              'the sandbox confirmation',
            )
          ).arrayBuffer();
      },
    },
  ];

  const requests: MixedLoadCounts = { paymentPlans: 0, ordersList: 0, pixPayments: 0, cardPayments: 0, webhooks: 0 };
  const latencies: number[] = [];
  const failures: string[] = [];
  const until = performance.now() + input.seconds * 1000;
  let next = 0;
  const loop = async () => {
    while (performance.now() < until) {
      const step = steps[next++ % steps.length]!;
      const begun = performance.now();
      try {
        await step.run();
        latencies.push(performance.now() - begun);
        requests[step.kind]++;
      } catch (error) {
        failures.push(error instanceof Error ? error.message : String(error));
      }
    }
  };
  await Promise.all(Array.from({ length: input.concurrency }, loop));
  if (failures.length)
    throw new Error(`${failures.length} requests of the mixed load failed, e.g.: ${failures.slice(0, 3).join(' | ')}`);
  latencies.sort((a, b) => a - b);
  const at = (fraction: number) =>
    Number((latencies[Math.min(latencies.length - 1, Math.ceil(fraction * latencies.length) - 1)] ?? 0).toFixed(1));
  return { requests, requestsPerSecond: Math.round(latencies.length / input.seconds), p50Ms: at(0.5), p99Ms: at(0.99) };
}
