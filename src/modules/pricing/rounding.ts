/**
 * The one rounding rule of the service: a fraction of a cent is rounded half up (away from zero for
 * the non-negative amounts money takes here), to the cent. Rates are percentages with at most four
 * decimals, so they are scaled to integers and the arithmetic is exact (BigInt, no floating point).
 */
const RATE_SCALE = 10_000n; // four decimals of a percent
const PERCENT = 100n * RATE_SCALE;

export function rateToScaled(percent: number): bigint {
  const scaled = Math.round(percent * Number(RATE_SCALE));
  if (!Number.isFinite(percent) || Math.abs(percent * Number(RATE_SCALE) - scaled) > 1e-6) {
    throw new RangeError(`rate ${percent} has more than four decimals`);
  }
  return BigInt(scaled);
}

/** `percent`% of `cents`, rounded half up to the cent. */
export function percentOf(cents: number, percent: number): number {
  return divideRoundHalfUp(BigInt(cents) * rateToScaled(percent), PERCENT);
}

/** numerator / denominator rounded half up, for non-negative operands. */
export function divideRoundHalfUp(numerator: bigint, denominator: bigint): number {
  if (numerator < 0n || denominator <= 0n)
    throw new RangeError('divideRoundHalfUp takes a non-negative numerator and a positive denominator');
  return Number((numerator * 2n + denominator) / (denominator * 2n));
}

/**
 * `percent`% of `cents`, scaled by `multiplier / divisor` before the one rounding (pro-rata rates:
 * a monthly percent over 30 days × days late), so a fraction is rounded once, never per step.
 */
export function percentOfProRata(cents: number, percent: number, multiplier: number, divisor: number): number {
  if (!Number.isInteger(multiplier) || !Number.isInteger(divisor) || multiplier < 0 || divisor <= 0) {
    throw new RangeError('percentOfProRata takes a non-negative integer multiplier and a positive integer divisor');
  }
  return divideRoundHalfUp(BigInt(cents) * rateToScaled(percent) * BigInt(multiplier), PERCENT * BigInt(divisor));
}
