/** The lines a chaos run prints: what was sent and answered, what was killed, what was reconciled. */

import type { Fleet } from './fleet.ts';
import type { ChaosPlan } from './plan.ts';
import type { AnswerTally } from './reconcile-answers.ts';
import type { LedgerTally } from './reconcile-ledger.ts';
import type { Traffic } from './traffic.ts';

export function summarise(run: {
  plan: ChaosPlan;
  seed: number;
  loadMs: number;
  fleet: Fleet;
  traffic: Traffic;
  books: { tally: LedgerTally };
  answers: { tally: AnswerTally };
  singleCapture: boolean;
}): string[] {
  const { plan, fleet, traffic, books, answers } = run;
  const byKind = new Map<string, Map<string, number>>();
  for (const exchange of traffic.exchanges) {
    const statuses = byKind.get(exchange.kind) ?? new Map<string, number>();
    const key = exchange.status === undefined ? 'cut' : String(exchange.status);
    statuses.set(key, (statuses.get(key) ?? 0) + 1);
    byKind.set(exchange.kind, statuses);
  }
  const operations = new Set(traffic.exchanges.map((exchange) => /^op-\d+/.exec(exchange.op)?.[0])).size;
  return [
    `chaos ${plan.name}, seed ${run.seed}: ${plan.apis} API processes, ${plan.workers} workers, ${plan.sandboxes} sandbox processes`,
    `operations: ${operations} (${traffic.exchanges.length} requests in ${(run.loadMs / 1000).toFixed(1)} s); webhooks no process could take: ${fleet.balancer.unserved()}`,
    ...[...byKind].map(
      ([kind, statuses]) =>
        `  ${kind} (p50 ${percentile(traffic, kind, 0.5)} ms, p99 ${percentile(traffic, kind, 0.99)} ms): ${[
          ...statuses,
        ]
          .sort()
          .map(([status, count]) => `${status}×${count}`)
          .join(' ')}`,
    ),
    `kills: ${fleet.kills.length} rounds (${fleet.kills.map((kill) => `${kill.api}+${kill.worker}`).join(', ')})`,
    `reconciled: ${books.tally.charges} gateway charges, ${books.tally.captures} captures, ${books.tally.refunds} refunds, ${books.tally.returnedByVoid} captures given back by a safety net, ${books.tally.openCutOff} pix or boletos of cut-off requests still open at the gateway`,
    `answers: ${answers.tally.paidAnswers} told paid (${answers.tally.paidThenReturned} of them later given back), ${answers.tally.refusedAttempts} refused attempts (${answers.tally.inFlightRefusals} × 409), ${answers.tally.refundsAcknowledged} refunds acknowledged`,
    `one capture per concurrently paid charge or cart: ${run.singleCapture ? 'checked' : 'not checked (no 409 seen; CHAOS_SINGLE_CAPTURE=1 demands it)'}`,
  ];
}

function percentile(traffic: Traffic, kind: string, rank: number): number {
  const times = traffic.exchanges
    .filter((exchange) => exchange.kind === kind && exchange.ms !== undefined)
    .map((exchange) => exchange.ms!)
    .sort((a, b) => a - b);
  return times[Math.min(times.length - 1, Math.floor(rank * times.length))] ?? 0;
}
