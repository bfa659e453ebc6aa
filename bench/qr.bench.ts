/**
 * The Pix QR code PNG (error correction M, 8 pixels per module, 4 modules of quiet zone, base64) rendered by
 * our path (`src/brazil/render/pix-qr.ts`) and by maintained generators used as they are, for the dynamic BR
 * Code a Pix payment gets from the sandbox. Each case's CPU per render is set in the Pix payment's terms: the
 * payment throughput it would give relative to today, given the CPU a Pix payment costs in all
 * (PIX_PAYMENT_CPU_MS, docs/benchmarks.md). `npm run bench -- qr`, or `node --import tsx bench/qr.bench.ts`.
 */
import { isMain, type BenchResult, type BenchRow } from './harness.ts';
import { SHORT } from './load.ts';
import { decodePngQr, QR_GENERATORS, TYPICAL_PIX_CODE } from './qr-generators.ts';

const BENCHMARK = 'qr';
// CPU of one Pix payment on the 2-core machine, all processes: PostgreSQL 5.93, service 5.25, sandbox 0.98 ms.
const PIX_PAYMENT_CPU_MS = 12.16;
const TARGET_RATIO = 0.85;
const ROUNDS = SHORT ? 3 : 9;
// CPU each case spends per round: rendering until then keeps the whole benchmark to a few seconds of CPU.
const ROUND_CPU_MS = SHORT ? 20 : 150;

const cpuMsSince = (start: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

/** CPU milliseconds per render: the median of rounds, the cases interleaved so load changes hit them alike. */
async function measure(): Promise<Map<string, number>> {
  const samples = new Map<string, number[]>(QR_GENERATORS.map((generator) => [generator.name, []]));
  for (const generator of QR_GENERATORS) await generator.render(TYPICAL_PIX_CODE); // warm up
  for (let round = 0; round < ROUNDS; round++) {
    for (const generator of QR_GENERATORS) {
      const start = process.cpuUsage();
      let renders = 0;
      while (renders < 3 || cpuMsSince(start) < ROUND_CPU_MS) {
        await generator.render(TYPICAL_PIX_CODE);
        renders++;
      }
      samples.get(generator.name)!.push(cpuMsSince(start) / renders);
    }
  }
  return new Map([...samples].map(([name, values]) => [name, values.sort((a, b) => a - b)[values.length >> 1]!]));
}

export async function run(): Promise<BenchResult> {
  for (const generator of QR_GENERATORS)
    if (decodePngQr(await generator.render(TYPICAL_PIX_CODE)) !== TYPICAL_PIX_CODE)
      throw new Error(`${generator.name}: the image does not read as its BR Code`);
  const cpuMs = await measure();
  const ours = cpuMs.get(QR_GENERATORS[0]!.name)!;
  const rows: BenchRow[] = QR_GENERATORS.map(({ name }) => {
    const ms = cpuMs.get(name)!;
    const ratio = PIX_PAYMENT_CPU_MS / (PIX_PAYMENT_CPU_MS - ours + ms);
    return {
      benchmark: BENCHMARK,
      case: `${name}: ${ms.toFixed(3)} ms CPU per render, ${((ms / ours) * 100).toFixed(0)}% of ours`,
      reqPerSec: Math.round(1000 / ms),
      baselineReqPerSec: Math.round(1000 / ours),
      ratio: Number(ratio.toFixed(3)),
      target: `Pix payments/s >= ${TARGET_RATIO} of today`,
      met: ratio >= TARGET_RATIO,
    };
  });
  console.table(rows.map((row) => ({ case: row.case, 'renders/s': row.reqPerSec, 'payment ratio': row.ratio })));
  return {
    benchmark: BENCHMARK,
    rows,
    notes: [
      `QR PNG renders per CPU second; the ratio is the Pix payment throughput with that renderer against ours, ` +
        `a payment costing ${PIX_PAYMENT_CPU_MS} ms of CPU in all.`,
    ],
  };
}

if (isMain(import.meta.url)) await run();
