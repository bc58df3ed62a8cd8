/**
 * @module Preloaded into a bench server (`--import`, with `--expose-gc`): on SIGUSR2 it
 * collects garbage and prints its memory on stderr, one `memory {…}` line, so a bench can
 * read what live objects cost without the noise of garbage not yet collected.
 */
process.on('SIGUSR2', () => {
  (globalThis as { gc?: () => void }).gc?.();
  process.stderr.write(`memory ${JSON.stringify(process.memoryUsage())}\n`);
});
