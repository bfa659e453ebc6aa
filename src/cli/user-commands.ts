import { migrate } from '../db/migrate.ts';
import { runUsersCommand, UsersUsageError } from '../modules/dashboard/index.ts';
import { isArgumentError, processClock, withDatabase, type CommandFamily } from './command.ts';

/** Dashboard users of an account, and their one-time sign-in links. */
export const userCommands: CommandFamily = {
  exitCodeOf: (error) => (error instanceof UsersUsageError || isArgumentError(error) ? 64 : undefined),
  commands: {
    async users(args, config) {
      await withDatabase(config, async (database) => {
        await migrate(database);
        const output = await runUsersCommand(args, {
          db: database.db,
          publicUrl: config.publicUrl,
          now: processClock(),
        });
        console.log(JSON.stringify(output, null, 2));
      });
    },
  },
};
