/** @module Reads a file that holds secrets (API keys, a cursor secret), and says when others can read it. */
import { open } from 'node:fs/promises';

/** A secret file's text, and a warning when its mode lets other users read it. */
export interface SecretFile {
  text: string;
  /** Set when the group or other users have any permission on the file. */
  warning?: string;
}

/**
 * Reads `file` (what it is, for messages, is `what`: "the API key file"). Its mode is read
 * from the file opened, not from its name, so the warning is about the file whose text is
 * used. Throws an Error naming the file when it cannot be read.
 */
export const readSecretFile = async (file: string, what: string): Promise<SecretFile> => {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT'
        ? `there is no such file; make one, readable by you only: (umask 077; openssl rand -base64 24 > ${file})`
        : code === 'EACCES'
          ? `permission denied; let this user read it (chown or chmod 600 as its owner)`
          : (error as Error).message;
    throw new Error(`cannot read ${what} ${file}: ${reason}`, { cause: error });
  }
  try {
    const stat = await handle.stat();
    if (stat.isDirectory()) throw new Error(`${what} ${file} is a folder, not a file: give the path of the file itself`);
    const { mode } = stat;
    const text = await handle.readFile('utf8');
    const loose = mode & 0o077;
    if (loose === 0) return { text };
    const octal = (mode & 0o777).toString(8).padStart(4, '0');
    return { text, warning: `${what} ${file} can be read by other users (mode ${octal}); make it yours alone: chmod 600 ${file}` };
  } finally {
    await handle.close();
  }
};
