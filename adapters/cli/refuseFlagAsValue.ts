/** @module Refuses a flag given where another flag's value should be: `--data --memory`. */
import type { Command } from 'commander';
import { UsageError } from './UsageError.js';

/** What looks like a flag: a dash then a letter (`-p`, `--memory`); `-1` or `-` are values. */
const FLAG = /^--?[A-Za-z]/;

/**
 * Throws a UsageError when a flag that takes a value is followed by another flag instead.
 * Commander would take the second flag as the value (`--data --memory` would serve a file
 * named `--memory`), so the mistake becomes a start the operator did not ask for. A value
 * that truly starts with a dash is still possible, written `--flag=VALUE`.
 *
 * @param argv The arguments after the program's name.
 * @param command The command they are for, whose options say which flags take a value.
 * @param usage The name of the command for the usage line.
 */
export const refuseFlagAsValue = (argv: readonly string[], command: Command, usage: 'serve' | 'copy' | 'init-worker'): void => {
  const takesValue = new Map<string, string>();
  for (const option of command.options) {
    if (!option.required && !option.optional) continue;
    const value = /[<[]([^>\]]+)[>\]]/.exec(option.flags)?.[1] ?? 'VALUE';
    for (const name of [option.long, option.short]) if (name) takesValue.set(name, value);
  }
  for (const [position, argument] of argv.entries()) {
    if (argument === '--') return;
    const value = takesValue.get(argument);
    const next = argv[position + 1];
    if (value === undefined || next === undefined || !FLAG.test(next)) continue;
    throw new UsageError(
      `${argument} needs a value, not the flag ${next.slice(0, 40)}: write ${argument} ${value} (a value that starts with a dash: ${argument}=${value})`,
      usage,
    );
  }
};
