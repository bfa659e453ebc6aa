/** The size of a chaos run: a short one for every `npm test`, a long one with CHAOS_LONG=1. */

export type ChaosPlan = {
  name: 'short' | 'long';
  apis: number;
  workers: number;
  /** 1: one `checkout sandbox` serves the three gateways; 3: one sandbox process per gateway. */
  sandboxes: 1 | 3;
  merchants: number;
  /** SIGKILL rounds: each kills one API process and one worker mid-load and starts them again. */
  killRounds: number;
  /** Well-formed operations (pays, pix and boleto confirmations, refunds), concurrent pay groups apart. */
  operations: number;
  malformed: number;
  /** Clients sending at once. */
  concurrency: number;
  /** Charges and carts each paid by this many cards at the same moment. */
  concurrentGroups: number;
  concurrentPays: number;
  /** How long a killed worker's jobs stay leased before another worker takes them. */
  leaseSeconds: number;
  timeoutMs: number;
};

const SHORT: ChaosPlan = {
  name: 'short',
  apis: 2,
  workers: 1,
  sandboxes: 1,
  merchants: 2,
  killRounds: 2,
  operations: 180,
  malformed: 100,
  concurrency: 8,
  concurrentGroups: 2,
  concurrentPays: 4,
  leaseSeconds: 8,
  timeoutMs: 480_000,
};

const LONG: ChaosPlan = {
  name: 'long',
  apis: 3,
  workers: 2,
  sandboxes: 3,
  merchants: 3,
  killRounds: 6,
  operations: 3_000,
  malformed: 1_500,
  concurrency: 16,
  concurrentGroups: 8,
  concurrentPays: 10,
  leaseSeconds: 10,
  timeoutMs: 1_800_000,
};

/** CHAOS_LONG=1 picks the long run; CHAOS_OPERATIONS=N sets its well-formed operations (and half as many malformed). */
export function chaosPlan(env: NodeJS.ProcessEnv = process.env): ChaosPlan {
  const plan = env.CHAOS_LONG === '1' || env.CHAOS_LONG === 'true' ? LONG : SHORT;
  const operations = Number(env.CHAOS_OPERATIONS);
  if (!env.CHAOS_OPERATIONS) return plan;
  if (!Number.isInteger(operations) || operations < 1) throw new Error('CHAOS_OPERATIONS must be a positive integer');
  return { ...plan, operations, malformed: Math.ceil(operations / 2) };
}

/**
 * CHAOS_SINGLE_CAPTURE=1 demands exactly one gateway capture per charge or cart paid by concurrent cards;
 * without it the check is on as soon as the service is seen refusing a concurrent attempt with 409.
 */
export function singleCaptureForced(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.CHAOS_SINGLE_CAPTURE === '1' || env.CHAOS_SINGLE_CAPTURE === 'true';
}
