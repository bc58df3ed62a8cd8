/**
 * @module The first step of `npm test`: makes sure the programs the tests need are here
 * before any test runs, so that a fresh machine's run is the same as CI's, with nothing
 * skipped. When something is missing and we are root on Debian, it installs it with
 * apt-get, saying on one line what and why; otherwise it stops, printing the one command
 * that fixes it. Nothing is printed when all is present.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { debianPlaces, findMissingTestTools, installCommand, type TestTool } from './findMissingTestTools.js';

const say = (line: string) => process.stderr.write(`${line}\n`);
const names = (tools: readonly TestTool[]) => tools.map((tool) => `${tool.name} (for ${tool.why})`).join(', ');

/** Runs apt-get quietly; its output is shown only when it fails. */
const aptGet = (args: string[]): boolean => {
  const answer = spawnSync('apt-get', ['-qq', ...args], {
    encoding: 'utf8',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    maxBuffer: 64 * 2 ** 20,
  });
  if (answer.status === 0) return true;
  say(`${answer.stdout ?? ''}${answer.stderr ?? ''}${answer.error?.message ?? ''}`.trim());
  return false;
};

const missing = findMissingTestTools(debianPlaces());
if (missing.length > 0) {
  const root = process.getuid?.() === 0;
  const debian = existsSync('/etc/debian_version');
  const command = installCommand(missing, root);
  if (!(root && debian)) {
    say(`npm test: the tests need ${names(missing)}; install ${missing.length === 1 ? 'it' : 'them'} first: ${command}`);
    process.exit(1);
  }
  const packagesFor = missing.map((tool) => `${tool.debianPackage} (for ${tool.why})`).join(', ');
  say(`npm test: installing what the tests need from Debian with apt-get: ${packagesFor}`);
  const packages = missing.map((tool) => tool.debianPackage);
  if (!aptGet(['update']) || !aptGet(['install', '-y', '--no-install-recommends', ...packages])) {
    say(`npm test: installing failed (above); run it yourself, then npm test again: ${command}`);
    process.exit(1);
  }
  const still = findMissingTestTools(debianPlaces());
  if (still.length > 0) {
    say(`npm test: ${names(still)} still missing after apt-get; install ${installCommand(still, root)}`);
    process.exit(1);
  }
}
