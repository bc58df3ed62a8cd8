/** @module Why `animal-store serve` could not start, in one line that names the cause and the fix. */
import { reasonOf } from '../../storage/reasonOf.js';
import { folderGivenAsFile } from './folderGivenAsFile.js';
import type { ServeSettings } from './serveCommand.js';

/** The system error code of an error or of what caused it (a DataFileError wraps one). */
const causeCodeOf = (error: unknown): string | undefined => {
  for (let at: unknown = error, depth = 0; at instanceof Error && depth < 4; at = at.cause, depth++) {
    const code = (at as NodeJS.ErrnoException).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
};

/** What a data file's first problem says when it holds animals but is no data file: an array, or json-server's `{"pets": […]}`. */
const isAnimalList = (problem: string): boolean => /^(the file must be a JSON object .* not an array|format is missing)/.test(problem);

/**
 * One line an operator can act on: what failed, and what to do about it. Ports and hosts
 * the system refuses, data files on read-only or forbidden places, and files of animals
 * that are not data files get advice; anything else is said as it is.
 */
export const startFailure = (error: unknown, { host, port, storage }: ServeSettings): string => {
  const folder = folderGivenAsFile(error);
  if (folder !== undefined) return folder;
  const reason = reasonOf(error);
  // The storage words a file failure `… (EROFS).`: that code is the true one, whatever the cause chain holds.
  const code = /\((E[A-Z0-9]+)\)\.?$/.exec(reason)?.[1] ?? causeCodeOf(error);
  if (code === 'EADDRINUSE') return `port ${port} on ${host} is already in use; choose another with --port (0 picks a free one)`;
  if (code === 'EADDRNOTAVAIL') return `cannot listen on ${host}: no such address on this machine; give one of its addresses with --host`;
  if (code === 'EACCES' && /\blisten\b/.test(reason)) {
    return `port ${port} needs privileges to listen on (ports below 1024 are root's); choose --port 8080 or another above 1023, or put a proxy in front`;
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return `cannot listen on ${host}: no such host name (${code}); give an address of this machine with --host, such as 127.0.0.1 or 0.0.0.0`;
  }
  const where = storage.kind === 'file' ? ' choose a writable place with --data FILE (or run with --memory)' : '';
  if (code === 'EROFS' && where) return `${reason.replace(/\.$/, '')}:${where}.`;
  if (code === 'EACCES' && where) return `${reason.replace(/\.$/, '')}: give this user write access, or${where}.`;
  const problem = (error as { problem?: unknown }).problem;
  if (typeof problem === 'string' && isAnimalList(problem) && storage.kind === 'file') {
    return (
      `${reason} If it is a list of animals (an array, or json-server's {"pets": [...]}), bring it in: ` +
      `animal-store --seed ${storage.file} --data NEW.json, or animal-store copy --from ${storage.file} --to NEW.json`
    );
  }
  return reason;
};
