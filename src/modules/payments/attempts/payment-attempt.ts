/** The payments of one pay request (one row, or both cards of a two-card split) share their creation time. */
export function sameAttempt(a: { created_at: Date }, b: { created_at: Date }): boolean {
  return a.created_at.getTime() === b.created_at.getTime();
}
