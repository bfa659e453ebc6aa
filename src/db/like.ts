/** A `%text%` pattern for ILIKE that matches `text` literally (its %, _ and \ escaped). */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}
