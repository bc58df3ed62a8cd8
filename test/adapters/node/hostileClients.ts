/**
 * @module A program that opens many hostile connections to a server, in a process of its own
 * so that the test measuring the server is not slowed by them. Settings come as JSON in
 * `ANIMAL_STORE_HOSTILE`:
 *
 * - `mode: "pipeline"`: each connection writes pipelined GETs of `path` as fast as the server
 *   takes them and never reads an answer. Connections the server closes are opened again,
 *   `reopenPerSecond` at most (0: never), so the pressure lasts at a steady rate.
 * - `mode: "trickle"`: each connection sends a POST head announcing a body, then one byte of
 *   the body a second, as slowly as a server lets it.
 * - `mode: "headers"`: each connection sends a request head one byte a second (slowloris).
 *   Connections the server closes are opened again, as with `pipeline`.
 *
 * Connections come from `localAddress` (another loopback address, such as 127.0.0.2, is
 * another client address to the server), or in turn from each of `localAddresses`. Prints `ready` once every connection has been
 * tried, `open N closed M` every half second (what it has open, and how many of its
 * connections the server has closed), and `stats JSON` when sent SIGTERM.
 */
import net from 'node:net';

/** What the hostile clients do: pipeline GETs without reading, or trickle a body. */
export interface HostileSettings {
  mode: 'pipeline' | 'trickle' | 'headers';
  port: number;
  connections: number;
  localAddress?: string;
  localAddresses?: string[];
  path?: string;
  reopenPerSecond?: number;
}

const settings = JSON.parse(process.env.ANIMAL_STORE_HOSTILE ?? '{}') as HostileSettings;
const { mode, port, connections, localAddress = '127.0.0.1', path = '/healthz', reopenPerSecond = 0 } = settings;
const localAddresses = settings.localAddresses ?? [localAddress];
let turn = 0;
const stats = { opened: 0, refused: 0, closedByServer: 0, bytesWritten: 0 };
const open = new Set<net.Socket>();
let stopping = false;
let toReopen = 0;

const pipelined = Buffer.from(`GET ${path} HTTP/1.1\r\nHost: victim\r\n\r\n`.repeat(1_000));

const connect = (): Promise<void> =>
  new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress: localAddresses[turn++ % localAddresses.length] });
    socket.pause(); // never read an answer
    socket.on('error', () => {});
    let connected = false;
    let trickle: NodeJS.Timeout | undefined;
    socket.on('connect', () => {
      connected = true;
      stats.opened++;
      open.add(socket);
      resolve();
      if (mode === 'pipeline') {
        // One write per turn: against a server that reads as fast as it can, the kernel takes
        // every write at once, and a loop would never give the signal handler a turn.
        const pump = () => {
          if (socket.destroyed) return;
          stats.bytesWritten += pipelined.length;
          if (socket.write(pipelined)) setImmediate(pump);
        };
        socket.on('drain', pump);
        pump();
      } else if (mode === 'headers') {
        const head = `GET ${path} HTTP/1.1\r\nHost: victim\r\n${'X-Slow: x\r\n'.repeat(1_000)}\r\n`;
        let sent = 0;
        trickle = setInterval(() => socket.write(head[sent++ % head.length]!), 1_000);
      } else {
        socket.write('POST /v1/pets HTTP/1.1\r\nHost: victim\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n');
        trickle = setInterval(() => socket.write('{'), 1_000);
      }
    });
    socket.on('close', () => {
      clearInterval(trickle);
      open.delete(socket);
      if (!connected) {
        stats.refused++;
        resolve();
        return;
      }
      stats.closedByServer++;
      if (mode !== 'trickle') toReopen++;
    });
  });

// Open in batches, so the server's accept queue (511 by default) is not what refuses them.
for (let i = 0; i < connections; i += 50) {
  await Promise.all(Array.from({ length: Math.min(50, connections - i) }, connect));
}
process.stdout.write('ready\n');

let reopenBudget = 0;
const reopen = setInterval(() => {
  reopenBudget = Math.min(reopenBudget + reopenPerSecond / 20, Math.max(1, reopenPerSecond / 20));
  while (!stopping && toReopen > 0 && reopenBudget >= 1) {
    toReopen--;
    reopenBudget--;
    void connect();
  }
}, 50);
const report = setInterval(() => process.stdout.write(`open ${open.size} closed ${stats.closedByServer}\n`), 500);
process.on('SIGTERM', () => {
  stopping = true;
  clearInterval(report);
  clearInterval(reopen);
  for (const socket of open) socket.destroy();
  process.stdout.write(`stats ${JSON.stringify(stats)}\n`, () => process.exit(0));
});
