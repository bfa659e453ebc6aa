import { migrate } from '../db/migrate.ts';
import {
  NotificationInputError,
  NotificationUsageError,
  runListen,
  runNotificationsCommand,
  runTrigger,
  ServiceCallError,
} from '../modules/notifications/index.ts';
import { isArgumentError, processClock, withDatabase, type CommandFamily } from './command.ts';

/** Merchant notification endpoints and deliveries, and local forwarding of them from the running service. */
export const notificationCommands: CommandFamily = {
  exitCodeOf(error) {
    if (error instanceof NotificationUsageError || isArgumentError(error)) return 64;
    return error instanceof NotificationInputError || error instanceof ServiceCallError ? 1 : undefined;
  },
  commands: {
    async notifications(args, config) {
      await withDatabase(config, async (database) => {
        await migrate(database);
        const output = await runNotificationsCommand(args, {
          db: database.db,
          masterKey: config.masterKey,
          now: processClock(),
        });
        console.log(JSON.stringify(output, null, 2));
      });
    },

    async listen(args, config) {
      const stop = new AbortController();
      const end = () => stop.abort();
      process.once('SIGINT', end);
      process.once('SIGTERM', end);
      try {
        await runListen(
          args,
          { serviceUrl: config.publicUrl, masterKey: config.masterKey },
          stop.signal,
          (line) => console.log(line),
          processClock,
        );
      } finally {
        process.off('SIGINT', end);
        process.off('SIGTERM', end);
      }
    },

    async trigger(args, config) {
      const done = await runTrigger(args, { serviceUrl: config.publicUrl, masterKey: config.masterKey });
      console.log(JSON.stringify(done, null, 2));
    },
  },
};
