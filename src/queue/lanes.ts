/**
 * Lanes split the job queue so one kind of work cannot hold back another: each lane is claimed and run on its
 * own, with its own concurrency. `core` runs what moves money or must land promptly (webhook application, Pix
 * expiry, reconciliation, renewals, refunds, orphan captures, order releases, maintenance); `deliveries` runs
 * merchant notification attempts, which wait on merchants' servers, limited per account and per endpoint
 * (the job's concurrency key) and claimed round-robin across accounts.
 */
export type LaneName = 'core' | 'deliveries';

export type LaneSettings = {
  /** Jobs of the lane one worker runs at once (claimed per run). */
  concurrency: number;
  /** When set, running jobs of the lane (across every worker) are limited per account and per concurrency key. */
  fairShare?: { perAccount: number; perKey: number };
};

export const LANE_NAMES: readonly LaneName[] = ['core', 'deliveries'];

export const DEFAULT_LANES: Record<LaneName, LaneSettings> = {
  core: { concurrency: 10 },
  deliveries: { concurrency: 8, fairShare: { perAccount: 4, perKey: 2 } },
};
