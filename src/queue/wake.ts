/**
 * An in-process signal that jobs are due now: whoever commits such a job announces it, and the workers
 * started in this process cut their poll sleep short. Workers in other processes keep polling.
 */
const listeners = new Set<() => void>();

/** Calls `listener` on every announcement until the returned function is called. */
export function onJobsDue(listener: () => void): () => void {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

/** Call after the commit that made the jobs visible, never inside the transaction. */
export function announceJobsDue(): void {
  for (const listener of listeners) listener();
}
