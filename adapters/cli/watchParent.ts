/** @module Notices when the process that started this one is gone. */

/**
 * Calls `gone` once when this process's parent exits (it is then adopted by another). Needed
 * under `npx animal-store`: npm runs the bin through `sh -c`, and a SIGTERM or SIGINT sent to
 * npm reaches npm and that shell but not the server, which would go on holding the port and
 * the data file's lock. Polls a cheap system call; the timer never keeps the process alive.
 *
 * @returns A function that stops watching.
 */
export const watchParent = (gone: () => void, intervalMs = 250): (() => void) => {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    gone();
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
};
