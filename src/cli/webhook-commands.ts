import { migrate } from '../db/migrate.ts';
import { runWebhooksCommand, WebhookCommandError, WebhookUsageError } from '../modules/webhooks/index.ts';
import { registerOrderTransitionHooks } from '../order-hooks.ts';
import { isArgumentError, processClock, withDatabase, type CommandFamily } from './command.ts';

/** Inbound events whose job ran out of attempts, and their replay. */
export const webhookCommands: CommandFamily = {
  exitCodeOf(error) {
    if (error instanceof WebhookUsageError || isArgumentError(error)) return 64;
    return error instanceof WebhookCommandError ? 1 : undefined;
  },
  commands: {
    async webhooks(args, config) {
      // A replayed event can move an order, which runs the hooks every process registers.
      registerOrderTransitionHooks();
      await withDatabase(config, async (database) => {
        await migrate(database);
        const output = await runWebhooksCommand(args, { db: database.db, now: processClock() });
        console.log(JSON.stringify(output, null, 2));
      });
    },
  },
};
