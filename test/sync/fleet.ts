/** @module A fleet for sync tests: a hub and kiosks as real CLI processes, each kiosk behind its own TCP proxy. */
import net from 'node:net';
import path from 'node:path';
import type { Pet } from '../../core/schemas/Pet.js';
import { type NodeProcess, runCli, waitForListening } from '../support/startCli.js';
import { startTcpProxy, type TcpProxy } from '../support/tcpProxy.js';

export const HUB_KEY = 'fleet-hub-key-0123456789';
export const KIOSK_KEY = 'fleet-kiosk-key-0123456789';

/** A free loopback port, so a node can be started again where it was. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

/** One server of the fleet: the hub or a kiosk, which can be killed and started again on the same file and port. */
export interface FleetNode {
  name: string;
  file: string;
  url: string;
  key: string;
  /** The kiosk's way to the hub; `undefined` for the hub. */
  proxy: TcpProxy | undefined;
  process: NodeProcess | undefined;
  /** True while it listens. */
  up: boolean;
  start(): Promise<void>;
  /** kill -9, and wait until it is gone. */
  kill(): Promise<void>;
}

const makeNode = (name: string, file: string, port: number, key: string, args: string[], proxy?: TcpProxy): FleetNode => {
  const node: FleetNode = {
    name,
    file,
    url: `http://127.0.0.1:${port}/v1`,
    key,
    proxy,
    process: undefined,
    up: false,
    async start() {
      const started = runCli(['serve', file, '--port', String(port), '--api-key', key, '--quiet', ...args]);
      node.process = started;
      await waitForListening(started);
      node.up = true;
    },
    async kill() {
      const running = node.process;
      node.up = false;
      if (!running) return;
      running.child.kill('SIGKILL');
      await running.exited;
      node.process = undefined;
    },
  };
  return node;
};

/** Starts a hub on a JSON data file and `kiosks` kiosks (JSON files), each reaching the hub through its own proxy. */
export const startFleet = async (folder: string, kiosks: number, intervalSeconds = 0.2) => {
  const hubPort = await freePort();
  const hub = makeNode('hub', path.join(folder, 'hub.json'), hubPort, HUB_KEY, []);
  const nodes: FleetNode[] = [hub];
  for (let index = 0; index < kiosks; index++) {
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: hubPort });
    const args = ['--sync-with', `http://127.0.0.1:${proxy.port}/v1`, '--sync-key', HUB_KEY, '--sync-interval', String(intervalSeconds)];
    nodes.push(makeNode(`kiosk ${index}`, path.join(folder, `kiosk-${index}.json`), await freePort(), KIOSK_KEY, args, proxy));
  }
  await Promise.all(nodes.map((node) => node.start()));
  return { hub, kiosks: nodes.slice(1), nodes };
};

/** Follows a list's Link headers from the first page; `undefined` when the node could not be reached on the way. */
export const walk = async (node: FleetNode, limit: number): Promise<Pet[] | undefined> => {
  const pets: Pet[] = [];
  let next: string | undefined = `${node.url}/pets?limit=${limit}`;
  try {
    while (next !== undefined) {
      const response: Response = await fetch(next, { headers: { authorization: `Bearer ${node.key}` } });
      if (response.status !== 200) return undefined;
      pets.push(...((await response.json()) as Pet[]));
      const link = response.headers.get('link');
      const path = link ? /<([^>]+)>; rel="next"/.exec(link)?.[1] : undefined;
      next = path === undefined ? undefined : new URL(path, node.url).href;
    }
  } catch {
    return undefined;
  }
  return pets;
};

/** Creates one animal at a node; the animal when it answered 201, else `undefined` (down, no ids yet, cut mid-answer). */
export const createAt = async (node: FleetNode, name: string): Promise<Pet | undefined> => {
  try {
    const response = await fetch(`${node.url}/pets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${node.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name, categoryId: 1 + (name.length % 5), status: 'available' }),
    });
    return response.status === 201 ? ((await response.json()) as Pet) : undefined;
  } catch {
    return undefined;
  }
};

/**
 * Sends a kiosk what only a hub takes, with the kiosk's own client key: a lease, or a push of
 * animals with the given ids. Resolves with the answer's status and code, or `undefined`
 * when the node could not be reached.
 */
export const intrude = async (node: FleetNode, what: 'lease' | 'push', ids: readonly number[]) => {
  try {
    const response = await fetch(`${node.url}/sync/${what === 'lease' ? 'leases' : 'push'}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${node.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(
        what === 'lease' ? {} : { pets: ids.map((id) => ({ id, name: `Intruder ${id}`, categoryId: 1, status: 'sold' })) },
      ),
    });
    const body = (await response.json()) as { code?: string };
    return { status: response.status, code: body.code };
  } catch {
    return undefined;
  }
};
