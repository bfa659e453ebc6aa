import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import {
  BOLETO_POLL,
  nextWait,
  PIX_POLL,
  watchPayment,
  type PaymentEvents,
  type PollSchedule,
} from '../../src/web/client/status-poll.ts';

/**
 * The status poll shared by the hosted page's pix and boleto views, run in Node with `fetch` answered by a
 * script of `/pay/status` bodies (the browser tests drive it against the real service).
 */
describe('hosted page status poll', () => {
  const realFetch = globalThis.fetch;
  let answers: Array<Record<string, unknown> | Error>;
  let asked: Array<{ url: string; at: number }>;

  beforeEach(() => {
    asked = [];
    globalThis.fetch = (async (url: string | URL) => {
      asked.push({ url: String(url), at: Date.now() });
      const next = answers.length > 1 ? answers.shift()! : answers[0]!;
      if (next instanceof Error) throw next;
      return new Response(JSON.stringify(next), { status: 200, headers: { 'content-type': 'application/json' } });
    }) as typeof fetch;
  });
  afterEach(() => {
    globalThis.fetch = realFetch;
  });

  const FAST: PollSchedule = { firstMs: 10, growth: 2, maxMs: 40, forMs: 10_000, offerEveryMs: 5, offerPolls: 3 };
  type Outcome = { events: string[]; end: string };

  /** Runs a poll to its end: the events it reported, the last one ending it. */
  function run(schedule: PollSchedule, awaitOffer: boolean): Promise<Outcome> {
    return new Promise((resolve) => {
      const events: string[] = [];
      const end = (name: string) => () => resolve({ events: [...events, name], end: name });
      const handlers: PaymentEvents = {
        paid: () => void events.push('paid'),
        offer: (token) => resolve({ events: [...events, `offer:${token}`], end: 'offer' }),
        settled: end('settled'),
        lapsed: end('lapsed'),
        gaveUp: end('gaveUp'),
      };
      watchPayment('3f0c8a52-5d0e-4a53-9a1e-6f1b2c3d4e5f', schedule, awaitOffer, handlers);
    });
  }

  test('the boleto schedule starts at 5 s and backs off by half up to a minute, within 30 minutes; a pix is asked every 2 s', () => {
    const waits: number[] = [];
    let total = 0;
    for (let wait = nextWait(BOLETO_POLL, 0); total + wait <= BOLETO_POLL.forMs; wait = nextWait(BOLETO_POLL, wait)) {
      waits.push(wait);
      total += wait;
    }
    assert.deepEqual(waits.slice(0, 8), [5_000, 7_500, 11_250, 16_875, 25_313, 37_970, 56_955, 60_000]);
    assert.ok(waits.length < 40, `${waits.length} polls in 30 minutes`);
    assert.equal(BOLETO_POLL.forMs, 30 * 60_000);
    assert.deepEqual([nextWait(PIX_POLL, 0), nextWait(PIX_POLL, 2_000)], [2_000, 2_000]);
  });

  test('unpaid answers back off; once paid the poll asks every offerEveryMs until the offer comes, then stops', async () => {
    answers = [
      { status: 'waiting_payment' },
      { status: 'waiting_payment' },
      { status: 'paid', order_status: 'paid' },
      { status: 'paid', order_status: 'paid', offer: 'tok' },
    ];
    const outcome = await run(FAST, true);
    assert.deepEqual(outcome.events, ['paid', 'offer:tok']);
    assert.equal(asked.length, 4);
    assert.ok(asked.every((request) => request.url === '/pay/status/3f0c8a52-5d0e-4a53-9a1e-6f1b2c3d4e5f'));
    const gaps = asked.slice(1).map((request, index) => request.at - asked[index]!.at);
    assert.ok(gaps[1]! >= 19, `the second wait (${gaps[1]} ms) is twice the first`);
    await new Promise((resolve) => setTimeout(resolve, 60));
    assert.equal(asked.length, 4, 'no poll after the offer');
  });

  test('paid on a page without an upsell product: settled at once; with one but no offer in time: settled after the offer polls', async () => {
    answers = [{ status: 'paid', order_status: 'paid' }];
    assert.deepEqual((await run(FAST, false)).events, ['paid', 'settled']);
    assert.equal(asked.length, 1);

    asked = [];
    answers = [{ status: 'paid', order_status: 'paid' }];
    assert.deepEqual((await run(FAST, true)).events, ['paid', 'settled'], 'paid is reported once');
    assert.equal(asked.length, FAST.offerPolls + 1);
  });

  test('a payment that lapses ends the poll; a failed request is one more unpaid answer', async () => {
    answers = [
      new TypeError('network down'),
      { status: 'waiting_payment' },
      { status: 'cancelled', order_status: 'cancelled' },
    ];
    assert.deepEqual((await run(FAST, true)).events, ['lapsed']);
    assert.equal(asked.length, 3);
    await new Promise((resolve) => setTimeout(resolve, 60));
    assert.equal(asked.length, 3, 'no poll after it lapsed');
  });

  test("a payment still unpaid when the schedule's time runs out: the poll gives up", async () => {
    answers = [{ status: 'waiting_payment' }];
    const outcome = await run({ ...FAST, forMs: 100 }, true);
    assert.deepEqual(outcome.events, ['gaveUp']);
    // Waits of 10, 20 and 40 ms fit in 100 ms; the next 40 would not (fewer when the machine is slow).
    assert.ok(asked.length >= 1 && asked.length <= 3, `${asked.length} polls`);
    const polls = asked.length;
    await new Promise((resolve) => setTimeout(resolve, 80));
    assert.equal(asked.length, polls, 'no poll after giving up');
  });
});
