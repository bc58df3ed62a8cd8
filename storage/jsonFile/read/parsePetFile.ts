/** @module Reads a data file's text into its content, or says what is wrong with it. */
import { parse as parseLosslessly } from 'lossless-json';
import { DataFileError } from '../../durableFile/index.js';
import { checkPetFile } from '../format/checkPetFile.js';
import type { PetFileData } from '../format/PetFileData.js';

/** Line and column (from 1) of a character offset, for a person opening the file in an editor. */
const lineAndColumn = (text: string, offset: number): string => {
  let line = 1;
  let lineStart = 0;
  for (let at = text.indexOf('\n'); at !== -1 && at < offset; at = text.indexOf('\n', at + 1)) {
    line++;
    lineStart = at + 1;
  }
  return `line ${line}, column ${offset - lineStart + 1}`;
};

/**
 * Why the text is not JSON, with where: V8's messages often give no position, so on this
 * (rare) path the text is parsed again by lossless-json, whose messages always do.
 */
const jsonProblem = (json: string, error: unknown): string => {
  let reason = (error as Error).message;
  try {
    parseLosslessly(json);
  } catch (positioned) {
    reason = (positioned as Error).message;
  }
  // A message may quote the offending character, which may be a line break or worse.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what this escapes.
  reason = reason.replace(/[\u0000-\u001f]/g, (char) => JSON.stringify(char).slice(1, -1));
  const offset = /position (\d+)/.exec(reason)?.[1];
  return `it is not valid JSON (${reason}${offset === undefined ? '' : `, which is ${lineAndColumn(json, Number(offset))}`})`;
};

/** The end of every damaged-file message: what was done to the file, and what to do. */
const ADVICE = 'The file was left as it is; repair it or move it away, then start again.';

/**
 * Parses and checks the text of the data file `file`. Throws a DataFileError naming the file
 * and the first problem (`is not valid JSON: … at line 3, column 7`, `pets[12].categoryId
 * must be …`) when the text is not a valid data file.
 */
export const parsePetFile = (text: string, file: string): PetFileData => {
  const damaged = (problem: string) => new DataFileError(file, `The data file ${file} cannot be used: ${problem}. ${ADVICE}`, { problem });
  // An editor may have saved a byte-order mark; it is not part of the JSON.
  const json = text.startsWith('\uFEFF') ? text.slice(1) : text;
  if (json.trim() === '') throw damaged('it is empty (a data file holds at least {"format":1,"nextId":1,"pets":[]})');
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw damaged(jsonProblem(json, error));
  }
  const checked = checkPetFile(value);
  if ('problem' in checked) throw damaged(`${checked.problem.path} ${checked.problem.message}`);
  return checked.data;
};
