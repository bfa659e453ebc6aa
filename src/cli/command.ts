import { readFileSync } from 'node:fs';
import type { Config } from '../config.ts';
import { openConfiguredDatabase } from '../db/database.ts';

export type Command = (args: string[], config: Config) => Promise<void>;

/**
 * A family of `checkout` commands, loaded only when one of them runs, so a command pays for the code it uses.
 * `exitCodeOf` names the errors of the family that are the user's to fix: printed as one line and ended with
 * that exit code (64 for a usage mistake, 1 for a refused value); anything else is a fault, printed in full.
 */
export type CommandFamily = {
  commands: Record<string, Command>;
  exitCodeOf(error: unknown): 1 | 64 | undefined;
};

export class UsageError extends Error {}

/** The process's clock: the commands' one reading of the wall clock, handed to everything they run. */
export const processClock = () => new Date();

/** `parseArgs` refusing an unknown option or a missing value: a usage error like any other. */
export function isArgumentError(error: unknown): error is Error {
  return (
    typeof (error as { code?: unknown })?.code === 'string' &&
    (error as { code: string }).code.startsWith('ERR_PARSE_ARGS_')
  );
}

/** A file's text, or a one-line usage error naming why it cannot be read (missing, a directory, no permission). */
export function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

export async function withDatabase<T>(
  config: Config,
  fn: (database: Awaited<ReturnType<typeof openConfiguredDatabase>>) => Promise<T>,
): Promise<T> {
  const database = await openConfiguredDatabase(config);
  try {
    return await fn(database);
  } finally {
    await database.close();
  }
}
