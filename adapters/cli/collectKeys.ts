/**
 * @module The API keys a server accepts: from `--api-key`, `ANIMAL_STORE_API_KEYS` and
 * `--api-key-file`, each checked and named by where it came from (never by itself).
 */
import { type ApiKey, isScope, KEY_NAME_FORMAT, SCOPES, type Scope } from '../../core/auth/apiKeys.js';
import { MINIMUM_KEY_LENGTH } from '../../core/auth/createBearerCheck.js';
import { readSecretFile } from './readSecretFile.js';
import { API_KEY_FORMAT, type ConfiguredKey } from './serveCommand.js';

/** A configured key as the service takes it: the key, its scopes and name, not where it came from. */
export const toApiKey = ({ key, scopes, name }: ConfiguredKey): ApiKey => ({
  key,
  ...(scopes === undefined ? {} : { scopes }),
  ...(name === undefined ? {} : { name }),
});

/** How to make a key the server accepts. */
const MAKE_ONE = 'make one with: openssl rand -base64 24';

/** Reads the words after a key on a keys-file line: scopes and `name=NAME`. Messages quote the words, never the key. */
const readKeyWords = (words: readonly string[], source: string): Pick<ConfiguredKey, 'scopes' | 'name'> => {
  const scopes: Scope[] = [];
  let name: string | undefined;
  for (const word of words) {
    const quoted = JSON.stringify(word.slice(0, 70));
    if (word.startsWith('name=')) {
      if (name !== undefined) throw new Error(`${source} names its key twice; give name= once`);
      name = word.slice(5);
      if (!KEY_NAME_FORMAT.test(name)) {
        throw new Error(
          `${source} has the name ${JSON.stringify(name.slice(0, 70))}; a name is 1 to 64 of A-Z a-z 0-9 . _ -, starting with a letter or digit`,
        );
      }
    } else if (isScope(word)) {
      if (!scopes.includes(word)) scopes.push(word);
    } else {
      throw new Error(
        `${source} has ${quoted}, which is neither a scope (${SCOPES.join(', ')}) nor name=NAME; a line is KEY [SCOPE…] [name=NAME]`,
      );
    }
  }
  return { ...(scopes.length === 0 ? {} : { scopes }), ...(name === undefined ? {} : { name }) };
};

/**
 * Reads a key file: a key per line, `KEY [SCOPE…] [name=NAME]`, separated by blanks; a line
 * without scopes gives every scope. Blank lines and `#` comments (whole lines, or the rest
 * of a line: no key holds a `#`) are ignored. Throws an Error naming the line (never
 * showing a key) for a line that cannot be used.
 */
export const parseKeyFile = (text: string, file: string): ConfiguredKey[] => {
  const keys: ConfiguredKey[] = [];
  for (const [index, line] of text.split(/\r?\n/).entries()) {
    const [key, ...words] = line.replace(/#.*$/, '').trim().split(/\s+/);
    if (key === undefined || key === '') continue;
    const source = `line ${index + 1} of ${file}`;
    if (!API_KEY_FORMAT.test(key)) {
      throw new Error(`${source} is not an API key: a key is letters, digits and -._~+/ (it travels as a Bearer token); ${MAKE_ONE}`);
    }
    keys.push({ key, source, ...readKeyWords(words, source) });
  }
  if (keys.length === 0) throw new Error(`the API key file ${file} holds no key: write one key per line (${MAKE_ONE})`);
  return keys;
};

/**
 * Every configured key, the given ones first, then each file's, duplicates dropped. Throws
 * an Error (the server does not start) for a file that cannot be read or holds no key, and
 * for a key shorter than the service accepts, naming where it is and how to make one.
 * Warns, through `warn`, of a key file other users can read.
 */
export const collectKeys = async (
  given: readonly ConfiguredKey[],
  files: readonly string[],
  warn: (message: string) => void,
): Promise<ConfiguredKey[]> => {
  const keys = [...given];
  for (const file of files) {
    const { text, warning } = await readSecretFile(file, 'the API key file');
    if (warning) warn(warning);
    keys.push(...parseKeyFile(text, file));
  }
  const short = keys.find(({ key }) => key.length < MINIMUM_KEY_LENGTH);
  if (short) {
    throw new Error(
      `the API key from ${short.source} has ${short.key.length} characters; keys need at least ${MINIMUM_KEY_LENGTH}, so that they cannot be guessed: ${MAKE_ONE}`,
    );
  }
  const seen = new Set<string>();
  return keys.filter(({ key }) => !seen.has(key) && seen.add(key));
};
