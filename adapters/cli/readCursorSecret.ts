/** @module The secret that seals page cursors: from `--cursor-secret`, its environment variable, or a file. */
import { readSecretFile } from './readSecretFile.js';

/** The shortest cursor secret accepted, as for API keys: long enough that it cannot be guessed. */
const MINIMUM_SECRET_LENGTH = 16;

/**
 * The cursor secret: the one given, or the text of `file` (blanks around it dropped; one
 * line). `undefined` when neither is set, for the service's built-in secret. Throws an Error
 * for a file that cannot be read, holds more than a line, or holds too short a secret; warns,
 * through `warn`, when other users can read the file.
 */
export const readCursorSecret = async (
  given: string | undefined,
  file: string | undefined,
  warn: (message: string) => void,
): Promise<string | undefined> => {
  if (file === undefined) return given;
  const { text, warning } = await readSecretFile(file, 'the cursor secret file');
  if (warning) warn(warning);
  const secret = text.trim();
  if (/[\r\n]/.test(secret)) throw new Error(`the cursor secret file ${file} must hold one line, the secret`);
  if (secret.length < MINIMUM_SECRET_LENGTH) {
    throw new Error(
      `the cursor secret in ${file} has ${secret.length} characters; it needs at least ${MINIMUM_SECRET_LENGTH}: make one with: openssl rand -base64 24`,
    );
  }
  return secret;
};
