/**
 * @module Reads the `animal-store` command line with commander: `serve` (the default
 * command, so `animal-store ./pets.json` serves that file) and `copy`, `--version` and
 * `-h`/`--help`. It only reads: nothing is opened, started or printed here.
 */
import { Command, CommanderError } from 'commander';
import { addCopyCommand, type CopySettings, readCopySettings } from './copyCommand.js';
import { addInitWorkerCommand, type InitWorkerSettings, readInitWorkerSettings } from './initWorkerCommand.js';
import { packageVersion } from './packageVersion.js';
import { refuseFlagAsValue } from './refuseFlagAsValue.js';
import { addServeCommand, readServeSettings, type ServeSettings } from './serveCommand.js';
import { UsageError } from './UsageError.js';

/** What the command line asks for. */
export type CliRequest =
  /** Help or the version: print `text` on stdout, exit 0. */
  | { kind: 'print'; text: string }
  | { kind: 'serve'; settings: ServeSettings }
  | { kind: 'copy'; settings: CopySettings }
  | { kind: 'init-worker'; settings: InitWorkerSettings };

/**
 * Commander's words, in one line: "error: unknown option '--prot'\n(Did you mean --port?)"
 * becomes "unknown option '--prot'; did you mean --port?".
 */
const oneLine = (message: string): string =>
  message
    .replace(/^error: /, '')
    // A conflict (`.conflicts()`), said as the hand-written checks say theirs.
    .replace(
      /^option '(\S+)[^']*' cannot be used with (?:option '(\S+)[^']*'|environment variable '([^']+)')$/,
      '$1 and $2$3 exclude each other; choose one',
    )
    .replace(/\n\(Did you mean (.+)\?\)/, '; did you mean $1?')
    .replace(/\s*\n\s*/g, '; ');

/**
 * Parses `animal-store [command] [options]` (the arguments after the program's name). Throws
 * a UsageError for anything it does not understand rather than guessing: a typo in a flag
 * must not start a server the operator did not ask for. Environment variables are read from
 * `env` (PORT, DATABASE_URL, ANIMAL_STORE_API_KEYS, ANIMAL_STORE_CURSOR_SECRET); commander
 * reads the ones it defaults flags from in `process.env`, so the two are one in practice.
 */
export const parseCommandLine = (argv: readonly string[], env: NodeJS.ProcessEnv = process.env): CliRequest => {
  let printed = '';
  let request: CliRequest | undefined;
  // Set before the commands are added: they inherit it. Commander prints nothing itself;
  // its errors come back here as CommanderErrors, worded again in one line.
  const program = new Command('animal-store')
    .exitOverride()
    .configureOutput({ writeOut: (text) => (printed += text), writeErr: () => {}, outputError: () => {} })
    .showSuggestionAfterError(true)
    // `--port PORT`, as the README writes flags, rather than commander's `--port <PORT>`.
    .configureHelp({ optionTerm: (option) => option.flags.replace(/ <([^>]+)>/g, ' $1') })
    .version(packageVersion(), '-V, --version', 'show the version')
    // `animal-store --help` is the default command's help, which lists every flag.
    .helpOption(false);
  const serve = addServeCommand(program).action((file: string | undefined, _flags, command: Command) => {
    request = { kind: 'serve', settings: readServeSettings(command, file, env) };
  });
  const copy = addCopyCommand(program).action((_flags, command: Command) => {
    request = { kind: 'copy', settings: readCopySettings(command) };
  });
  const initWorker = addInitWorkerCommand(program).action((folder: string | undefined, _flags, command: Command) => {
    request = { kind: 'init-worker', settings: readInitWorkerSettings(folder, command) };
  });
  const usage = argv[0] === 'copy' ? 'copy' : argv[0] === 'init-worker' ? 'init-worker' : 'serve';
  refuseFlagAsValue(argv, usage === 'copy' ? copy : usage === 'init-worker' ? initWorker : serve, usage);
  try {
    program.parse([...argv], { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    if (error.exitCode === 0) return { kind: 'print', text: printed };
    throw new UsageError(oneLine(error.message), usage);
  }
  if (request === undefined) throw new UsageError('nothing to do');
  return request;
};
