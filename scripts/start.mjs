/**
 * @module `npm start`: the command as `npx animal-store` runs it, from the sources compiled
 * by the package's own build (`compiledForStart`), in this process, flags and signals alike.
 * Plain JavaScript, run by node: the point is not to run the command through tsx, whose
 * esbuild wraps every named function to keep its name, which costs the server measurably
 * (docs/performance.md).
 */
import { pathToFileURL } from 'node:url';
import { compiledForStart } from './compiledForStart.mjs';

let bin;
try {
  bin = await compiledForStart();
} catch (error) {
  process.stderr.write(`animal-store: ${error.message}\n`);
  process.exit(1);
}
await import(pathToFileURL(bin).href);
