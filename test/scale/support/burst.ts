/** A burst of card payments with idempotency keys, each answer (or the lack of one) kept per key. */

import { cardPayment, postJson, PUBLIC_ORIGIN, type Answer, type ScaleMerchant } from './deployment.ts';
import type { SandboxUrls } from '../../support/pay-fixtures.ts';

export type BurstRequest = {
  key: string;
  email: string;
  body: Record<string, unknown>;
  answer?: Answer;
  error?: string;
};

/**
 * Sends up to `count` payments to `apiUrl`, `concurrency` at a time, until `stop()` is called; every
 * request has its own idempotency key and customer email, so each key's orders can be found afterwards.
 */
export function startBurst(
  apiUrl: string,
  sandboxes: SandboxUrls,
  merchant: ScaleMerchant,
  options: { count: number; concurrency: number },
) {
  const requests: BurstRequest[] = [];
  let stopped = false;
  let next = 0;
  const lane = async () => {
    while (!stopped && next < options.count) {
      const index = next++;
      const email = `burst-${index}@example.com`;
      const request: BurstRequest = {
        key: `burst-${index}`,
        email,
        body: await cardPayment(sandboxes, merchant, { email }),
      };
      requests.push(request);
      try {
        request.answer = await postJson(`${apiUrl}/api/v1/payments`, request.body, {
          ...PUBLIC_ORIGIN,
          'idempotency-key': request.key,
        });
      } catch (error) {
        request.error = (error as Error).message;
      }
    }
  };
  const done = Promise.all(Array.from({ length: options.concurrency }, lane));
  return {
    requests,
    answered: () => requests.filter((request) => request.answer !== undefined).length,
    stop: async () => {
      stopped = true;
      await done;
    },
  };
}

/** Sends a request of the burst again, with its key and body, to `apiUrl`. */
export function retry(apiUrl: string, request: BurstRequest): Promise<Answer> {
  return postJson(`${apiUrl}/api/v1/payments`, request.body, { ...PUBLIC_ORIGIN, 'idempotency-key': request.key });
}
