/** @module What SIGHUP does to a server: never stop it; operators send it to ask for a reload. */
import type { CliLog } from './createCliLog.js';

/**
 * Handles SIGHUP, which operators (and `systemctl reload`, and a closing terminal) send to a
 * server, from the moment `serve` begins: Node's default would end the process at once,
 * without the graceful stop SIGTERM gets. While the server starts there is nothing to reload
 * (the keys are being read), and the log says so; call the returned function with the
 * reload to run from then on (reading the keys files again).
 */
export const reloadOnHangup = (log: Pick<CliLog, 'info'>): ((reload: () => unknown) => void) => {
  let reload: () => unknown = () =>
    log.info('SIGHUP while starting: nothing to reload yet (the keys are being read); still starting', { signal: 'SIGHUP' });
  process.on('SIGHUP', () => reload());
  return (then) => {
    reload = then;
  };
};
