/** @module `animal-store copy`: its flags, and what it is to copy where. */
import { type Command, Option } from 'commander';
import { parseSchema } from './optionParsers.js';
import { UsageError } from './UsageError.js';

/** What `animal-store copy` is to copy, and where. */
export interface CopySettings {
  /** A data file's path or a postgres:// URL. */
  from: string;
  /** Likewise. */
  to: string;
  /** Replace what the target holds. */
  replace: boolean;
  /** The PostgreSQL schema on either side; `animal_store` when not given. */
  schema?: string;
}

/** Adds `copy` to the program. */
export const addCopyCommand = (program: Command): Command =>
  program
    .command('copy')
    .description(
      'Copy every animal, the next id and the Idempotency-Keys from one place to another: a data file or a postgres:// URL, either way. ' +
        'A target that holds animals is refused unless --replace is given.',
    )
    .usage('--from PLACE --to PLACE [--replace] [--schema NAME]')
    .allowExcessArguments()
    .option('--from <PLACE>', 'the data file or postgres:// URL to copy from')
    .option('--to <PLACE>', 'the data file or postgres:// URL to copy into')
    .option('--replace', 'replace what the target holds')
    .addOption(new Option('--schema <NAME>', 'the PostgreSQL schema on either side (default animal_store)').argParser(parseSchema))
    .helpOption('-h, --help', 'show this help');

/** Reads a parsed `copy` command's settings; throws a UsageError when a place is missing. */
export const readCopySettings = (command: Command): CopySettings => {
  const { from, to, replace, schema } = command.opts<{ from?: string; to?: string; replace?: boolean; schema?: string }>();
  if (command.args.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(command.args[0]!.slice(0, 40))}`, 'copy');
  if (!from) throw new UsageError('copy needs --from: the data file or postgres:// URL to copy from', 'copy');
  if (!to) throw new UsageError('copy needs --to: the data file or postgres:// URL to copy into', 'copy');
  return { from, to, replace: replace ?? false, ...(schema === undefined ? {} : { schema }) };
};
