/**
 * @module A TCP proxy in front of a real server, for tests of what a client does when the
 * network fails: the server goes away (connections cut, new ones refused), or goes silent
 * (packets dropped, as behind a dead router or a full firewall), and then comes back.
 */
import net from 'node:net';

/** A proxy listening on 127.0.0.1, forwarding to a target. */
export interface TcpProxy {
  /** The port it listens on (the same after `restore()`). */
  port: number;
  /** Cuts every connection and stops listening: new connections are refused, as by a server that is down. */
  cut(): Promise<void>;
  /** Keeps connections open but forwards nothing either way, and accepts new ones that never answer. */
  freeze(): void;
  /** Listens and forwards again; connections that lived through a freeze are cut (their bytes were lost). */
  restore(): Promise<void>;
  /** Stops for good. */
  close(): Promise<void>;
}

/** Starts a proxy to `host:port`. */
export const startTcpProxy = async (target: { host: string; port: number }): Promise<TcpProxy> => {
  const sockets = new Set<net.Socket>();
  const frozenOnes = new Set<net.Socket>();
  let frozen = false;

  const server = net.createServer((client) => {
    const upstream = net.connect(target);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => {
        sockets.delete(socket);
        frozenOnes.delete(socket);
        client.destroy();
        upstream.destroy();
      });
      if (frozen) frozenOnes.add(socket);
    }
    client.on('data', (chunk) => {
      if (frozen) frozenOnes.add(client);
      else upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (frozen) frozenOnes.add(upstream);
      else client.write(chunk);
    });
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  await listen(0);
  const { port } = server.address() as net.AddressInfo;

  const stopListening = () => new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
  return {
    port,
    async cut() {
      const closed = stopListening();
      for (const socket of sockets) socket.destroy();
      await closed;
    },
    freeze() {
      frozen = true;
    },
    async restore() {
      frozen = false;
      for (const socket of frozenOnes) socket.destroy();
      frozenOnes.clear();
      if (!server.listening) await listen(port);
    },
    async close() {
      const closed = stopListening();
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
};
