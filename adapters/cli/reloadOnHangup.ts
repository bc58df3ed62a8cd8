/** @module What SIGHUP does to a running server: never stop it; operators send it to ask for a reload. */
import type { CliLog } from './createCliLog.js';

/**
 * Handles SIGHUP, which operators (and `systemctl reload`, and a closing terminal) send to a
 * server, from the moment it starts: Node's default would end the process at once, without
 * the graceful stop SIGTERM gets. Until the server is up there is nothing to read again (the
 * start reads the keys); the function returned gives the reload to run from then on (the
 * keys files read again).
 */
export const reloadOnHangup = (log: Pick<CliLog, 'info'>): ((reload: () => void) => void) => {
  let reload = () => log.info('SIGHUP: still starting, nothing to reload yet (the start reads the keys)', { signal: 'SIGHUP' });
  process.on('SIGHUP', () => reload());
  return (next) => {
    reload = next;
  };
};
