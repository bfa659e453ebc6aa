import { parseArgs } from 'node:util';
import { migrate } from '../db/migrate.ts';
import { wholeSecondsArgument } from '../lib/cli-numbers.ts';
import { rotateKey } from '../modules/accounts/index.ts';
import {
  applyMerchant,
  MerchantApplyError,
  MerchantDocumentError,
  parseMerchantDocument,
} from '../modules/merchant-file/index.ts';
import { isArgumentError, processClock, readText, UsageError, withDatabase, type CommandFamily } from './command.ts';

/** How long the previous API keys may keep working after a rotation: a year at most. */
const MAX_KEY_GRACE_SECONDS = 365 * 86_400;

/** The commands that set a merchant up: its file and its API keys. */
export const merchantCommands: CommandFamily = {
  exitCodeOf(error) {
    if (error instanceof UsageError || isArgumentError(error)) return 64;
    return error instanceof MerchantDocumentError || error instanceof MerchantApplyError ? 1 : undefined;
  },
  commands: {
    async apply(args, config) {
      const { values, positionals } = parseArgs({
        args,
        allowPositionals: true,
        options: { 'rotate-key': { type: 'boolean' } },
      });
      const [file, ...extra] = positionals;
      if (!file) throw new UsageError('apply needs a FILE');
      if (extra.length > 0) throw new UsageError(`apply takes one FILE (also given: ${extra.join(' ')})`);
      const document = parseMerchantDocument(readText(file), file);
      await withDatabase(config, async (database) => {
        await migrate(database);
        const result = await applyMerchant(database, config.masterKey, document, {
          rotateKey: values['rotate-key'] === true,
          now: processClock(),
        });
        console.log(JSON.stringify(result, null, 2));
      });
    },

    async keys(args, config) {
      const { values, positionals } = parseArgs({
        args,
        allowPositionals: true,
        options: { account: { type: 'string' }, 'grace-seconds': { type: 'string', default: '86400' } },
      });
      if (positionals[0] !== 'rotate' || !values.account)
        throw new UsageError('usage: keys rotate --account SLUG [--grace-seconds N]');
      const grace = wholeSecondsArgument(values['grace-seconds'], MAX_KEY_GRACE_SECONDS);
      if (grace === undefined)
        throw new UsageError(`--grace-seconds must be a whole number of seconds from 0 to ${MAX_KEY_GRACE_SECONDS}`);
      await withDatabase(config, async (database) => {
        await migrate(database);
        const account = await database.db
          .selectFrom('accounts')
          .select('id')
          .where('slug', '=', values.account!)
          .executeTakeFirst();
        if (!account) throw new UsageError(`no account with slug ${values.account}`);
        const key = await rotateKey(database.db, account.id, grace, processClock());
        console.log(
          JSON.stringify(
            { account_id: account.id, api_key: key.plaintext, previous_keys_expire_in_seconds: grace },
            null,
            2,
          ),
        );
      });
    },
  },
};
