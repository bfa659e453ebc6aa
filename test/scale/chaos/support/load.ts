/**
 * Runs a chaos plan's operations, `concurrency` at a time, in a seeded order; the kill rounds fall at even
 * steps of the load while the lanes keep sending. A failure of the test's own machinery (not an answer of
 * the service) is collected, not thrown, so one does not stop the others.
 */

import { sendMalformed } from './malformed.ts';
import { cartPay, chargePay, concurrentPays, pagePay, refund, type Workload } from './operations.ts';
import type { ChaosPlan } from './plan.ts';
import type { KillRecord } from './fleet.ts';

type Step = (work: Workload, op: string) => Promise<void>;

export async function runLoad(work: Workload, plan: ChaosPlan): Promise<{ kills: KillRecord[]; faults: string[] }> {
  const steps = schedule(work, plan);
  const faults: string[] = [];
  const kills: KillRecord[] = [];
  let next = 0;
  let finished = 0;
  const lane = async () => {
    while (next < steps.length) {
      const index = next++;
      try {
        await steps[index]!(work, `op-${index}`);
      } catch (error) {
        faults.push(`op-${index}: ${(error as Error).stack ?? String(error)}`);
      }
      finished++;
    }
  };
  const killer = async () => {
    for (let round = 0; round < plan.killRounds; round++) {
      const at = Math.floor(((round + 1) * steps.length) / (plan.killRounds + 1));
      while (finished < at) await new Promise((resolve) => setTimeout(resolve, 20));
      kills.push(await work.fleet.killRound(round));
    }
  };
  await Promise.all([...Array.from({ length: plan.concurrency }, lane), killer()]);
  return { kills, faults };
}

/** The plan's well-formed and malformed operations in a seeded order, concurrent pay groups spread among them. */
function schedule(work: Workload, plan: ChaosPlan): Step[] {
  const steps: Step[] = [];
  for (let index = 0; index < plan.operations; index++)
    steps.push(
      work.random.weighted<Step>([
        [pagePay, 4],
        [cartPay, 2],
        [chargePay, 2],
        [refund, 1],
      ]),
    );
  for (let index = 0; index < plan.malformed; index++) steps.push(sendMalformed);
  for (let index = steps.length - 1; index > 0; index--) {
    const other = work.random.int(0, index);
    [steps[index], steps[other]] = [steps[other]!, steps[index]!];
  }
  for (let group = 0; group < plan.concurrentGroups * 2; group++) {
    const on = group % 2 === 0 ? 'charge' : 'cart';
    const at = Math.floor(((group + 1) * steps.length) / (plan.concurrentGroups * 2 + 1));
    steps.splice(at, 0, (inner, op) => concurrentPays(inner, op, plan.concurrentPays, on));
  }
  return steps;
}
