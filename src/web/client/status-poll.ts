import { getJson } from './api.ts';

/**
 * When the page asks `/pay/status/{uid}` again about a payment it shows: the first wait, how each wait grows
 * and its cap, how long the poll lasts while unpaid, and after the payment how often and how many times more
 * it asks for the order's upsell offer (released by the service's worker moments after the payment).
 */
export type PollSchedule = {
  firstMs: number;
  growth: number;
  maxMs: number;
  forMs: number;
  offerEveryMs: number;
  offerPolls: number;
};

const OFFER_WAIT = { offerEveryMs: 2_000, offerPolls: 15 };

/** A Pix: every 2 s until it is paid or lapses (the service cancels it at its expiry, which ends the poll). */
export const PIX_POLL: PollSchedule = {
  firstMs: 2_000,
  growth: 1,
  maxMs: 2_000,
  forMs: Number.POSITIVE_INFINITY,
  ...OFFER_WAIT,
};

/**
 * A boleto clears in minutes at best, usually days later: 5 s, then each wait half as long again up to a
 * minute, for 30 minutes (an upsell offer's lifetime); after that the buyer is told the page can be closed.
 */
export const BOLETO_POLL: PollSchedule = {
  firstMs: 5_000,
  growth: 1.5,
  maxMs: 60_000,
  forMs: 30 * 60_000,
  ...OFFER_WAIT,
};

/** The wait after `previous` (0 before the first poll). */
export function nextWait(schedule: PollSchedule, previous: number): number {
  return previous <= 0 ? schedule.firstMs : Math.min(schedule.maxMs, Math.round(previous * schedule.growth));
}

/** What the poll learnt; each ends the poll except `paid`, which is reported once. */
export type PaymentEvents = {
  paid(): void;
  /** The order's upsell offer token, when one was awaited. */
  offer(token: string): void;
  /** Paid, with no offer awaited or none within the offer polls. */
  settled(): void;
  /** The payment lapsed unpaid (cancelled, failed). */
  lapsed(): void;
  /** The schedule's time ran out with the payment still unpaid. */
  gaveUp(): void;
};

/**
 * Polls the payment `uid` on `schedule` until it is paid, lapses or the schedule's time runs out; a failed
 * request is just another unpaid answer. Once paid, with `awaitOffer` (the page has an upsell product) it
 * goes on until the status carries the offer, or the offer polls are spent.
 */
export function watchPayment(uid: string, schedule: PollSchedule, awaitOffer: boolean, events: PaymentEvents): void {
  const started = Date.now();
  let stopped = false;
  let paid = false;
  let offerPolls = 0;
  let wait = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stop = () => {
    stopped = true;
    clearTimeout(timer);
  };
  const later = (ms: number) => {
    if (!stopped) timer = setTimeout(() => void poll(), ms);
  };
  const poll = async () => {
    if (stopped) return;
    const answer = await getJson(`/pay/status/${encodeURIComponent(uid)}`);
    if (stopped) return;
    const state = answer.body?.status;
    if (state === 'paid') {
      if (!paid) {
        paid = true;
        events.paid();
      }
      const offer = answer.body?.offer;
      if (awaitOffer && typeof offer === 'string') {
        stop();
        return events.offer(offer);
      }
      if (!awaitOffer || ++offerPolls > schedule.offerPolls) {
        stop();
        return events.settled();
      }
      return later(schedule.offerEveryMs);
    }
    if (state === 'cancelled' || state === 'failed') {
      stop();
      return events.lapsed();
    }
    wait = nextWait(schedule, wait);
    if (Date.now() + wait - started > schedule.forMs) {
      stop();
      return events.gaveUp();
    }
    later(wait);
  };
  wait = nextWait(schedule, 0);
  later(wait);
}
