/** @module What SIGHUP does to a running server: never stop it; operators send it to ask for a reload. */
import type { CliLog } from './createCliLog.js';

/**
 * Handles SIGHUP, which operators (and `systemctl reload`, and a closing terminal) send to a
 * server, for as long as it serves: Node's default would end the process at once, without
 * the graceful stop SIGTERM gets. The reload itself is here, in one place: for now nothing
 * is read again (keys and settings are read at start), and the log says so. Returns the
 * function that stops handling it.
 */
export const reloadOnHangup = (log: Pick<CliLog, 'info'>): (() => void) => {
  const reload = () => log.info('SIGHUP: nothing to reload (keys and settings are read at start); still serving', { signal: 'SIGHUP' });
  process.on('SIGHUP', reload);
  return () => process.off('SIGHUP', reload);
};
