/**
 * @module The soak's mixed traffic against one server: keyed creates (and their replays),
 * wrong keys, page walks, health checks, each at a steady rate, and slow clients that send
 * their headers a byte a second. What each request took and how it ended is recorded per
 * window, for the soak's samples.
 */
import { connect, type Socket } from 'node:net';

/** The kinds of request the soak makes. */
export const KINDS = ['create', 'replay', 'wrongKey', 'page', 'health'] as const;
/** A kind of request. */
export type Kind = (typeof KINDS)[number];

/** The rates of the traffic. */
export interface TrafficRates {
  /** Keyed creates per second; one in ten is sent twice, the second a replay. */
  creates: number;
  /** Requests with a wrong key per second. */
  wrongKeys: number;
  /** List pages per second, walked by a few clients from the start to the end, over and over. */
  pages: number;
  /** `/healthz` per second. */
  health: number;
  /** Connections open at once that send their headers a byte a second. */
  slowClients: number;
}

/** What one window of traffic did. */
export interface WindowFigures {
  /** Answers per kind. */
  answers: Record<Kind, number>;
  /** The 99th percentile of the time to a complete answer, per kind and over all, in ms. */
  p99Ms: Record<Kind | 'all', number>;
  /** Answers with another status than the kind expects, and requests that failed outright. */
  unexpected: number;
  /** The same, by kind and status ("create 503", "page failed"). */
  unexpectedByKind: Record<string, number>;
  /** Requests not sent because too many of their kind were still waiting (the server fell behind). */
  skipped: number;
  /** Slow clients cut off by the server (408 or closed) in the window, and connected again. */
  slowClientsCut: number;
}

/** The answer each kind expects. */
const EXPECTED: Record<Kind, number> = { create: 201, replay: 201, wrongKey: 401, page: 200, health: 200 };
/** How many requests of one kind may wait at once before the next ones are skipped. */
const MOST_WAITING = 64;

const p99Of = (values: number[]) => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)]!;
};

/** Runs the traffic until `stop()`; `takeWindow()` hands over what happened since the last call. */
export const startTraffic = (origin: string, basePath: string, key: string, rates: TrafficRates) => {
  const base = `${origin}${basePath}`;
  const authorized = { authorization: `Bearer ${key}` };
  const fresh = () => ({
    latencies: Object.fromEntries(KINDS.map((kind) => [kind, [] as number[]])) as Record<Kind, number[]>,
    unexpected: 0,
    unexpectedByKind: {} as Record<string, number>,
    skipped: 0,
    slowClientsCut: 0,
  });
  let window = fresh();
  let stopped = false;
  const waiting: Record<Kind, number> = { create: 0, replay: 0, wrongKey: 0, page: 0, health: 0 };
  const timers: NodeJS.Timeout[] = [];
  const sockets = new Set<Socket>();

  const countUnexpected = (what: string) => {
    window.unexpected += 1;
    window.unexpectedByKind[what] = (window.unexpectedByKind[what] ?? 0) + 1;
  };

  /** Sends one request of a kind, timing it to its last byte; answers the body, or undefined when it failed. */
  const send = async (kind: Kind, url: string, init: RequestInit = {}): Promise<{ text: string; response: Response } | undefined> => {
    if (waiting[kind] >= MOST_WAITING) {
      window.skipped += 1;
      return undefined;
    }
    waiting[kind] += 1;
    const started = performance.now();
    try {
      const response = await fetch(url, init);
      const text = await response.text();
      window.latencies[kind].push(performance.now() - started);
      if (response.status !== EXPECTED[kind]) countUnexpected(`${kind} ${response.status}`);
      return { text, response };
    } catch {
      countUnexpected(`${kind} failed`);
      return undefined;
    } finally {
      waiting[kind] -= 1;
    }
  };

  /** Calls `fn` `perSecond` times a second, spread evenly, whatever the answers take (an open loop). */
  const every = (perSecond: number, fn: () => void) => {
    if (perSecond <= 0) return;
    // Timers fire at most every millisecond or so: batch to 100 ticks a second at most.
    const ticks = Math.min(perSecond, 100);
    const perTick = perSecond / ticks;
    let owed = 0;
    timers.push(
      setInterval(() => {
        owed += perTick;
        for (; owed >= 1; owed -= 1) fn();
      }, 1000 / ticks),
    );
  };

  let created = 0;
  const create = () => {
    created += 1;
    const body = JSON.stringify({ name: `Soak ${created}`, categoryId: 1 + (created % 12) });
    const init = {
      method: 'POST',
      headers: { ...authorized, 'content-type': 'application/json', 'idempotency-key': `soak-${process.pid}-${created}` },
      body,
    };
    void send('create', `${base}/pets`, init).then((first) => {
      if (first && created % 10 === 0) void send('replay', `${base}/pets`, init);
    });
  };
  let wrong = 0;
  const wrongKey = () => {
    wrong += 1;
    void send('wrongKey', `${base}/pets`, { headers: { authorization: `Bearer wrong-key-soak-${wrong % 1000}-padding` } });
  };
  // Walkers: each follows its Link rel="next" to the end, then starts again.
  const walkers = Array.from({ length: 4 }, () => ({ next: `${base}/pets?limit=100` as string | undefined, busy: false }));
  let turn = 0;
  const page = () => {
    const walker = walkers[turn++ % walkers.length]!;
    if (walker.busy) {
      window.skipped += 1;
      return;
    }
    walker.busy = true;
    void send('page', walker.next ?? `${base}/pets?limit=100`, { headers: authorized }).then((answer) => {
      walker.busy = false;
      const link = answer?.response.headers.get('link');
      const path = link ? /<([^>]+)>;\s*rel="next"/.exec(link)?.[1] : undefined;
      walker.next = path === undefined ? undefined : `${origin}${path}`;
    });
  };
  const health = () => void send('health', `${origin}/healthz`);

  /**
   * A client that sends its request's headers a byte a second; when cut off, another takes
   * its place. Slow clients come from ten loopback addresses of their own (127.0.0.2 to
   * 127.0.0.11), as a crowd would: the other traffic, from 127.0.0.1, stays within its
   * address's connection cap.
   */
  let slowClients = 0;
  const slowClient = () => {
    if (stopped) return;
    const request = `GET ${basePath}/pets HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nX-Slow: ${'s'.repeat(200)}\r\n\r\n`;
    const url = new URL(origin);
    const socket = connect({ host: url.hostname, port: Number(url.port), localAddress: `127.0.0.${2 + (slowClients++ % 10)}` });
    sockets.add(socket);
    let sent = 0;
    const drip = setInterval(() => {
      if (sent < request.length && !socket.destroyed) socket.write(request[sent++]!);
    }, 1000);
    socket.on('data', () => {});
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(drip);
      sockets.delete(socket);
      if (stopped) return;
      window.slowClientsCut += 1;
      // Spread reconnections out, so they do not all arrive together.
      timers.push(setTimeout(slowClient, 100 + Math.random() * 900));
    });
  };

  every(rates.creates, create);
  every(rates.wrongKeys, wrongKey);
  every(rates.pages, page);
  every(rates.health, health);
  for (let n = 0; n < rates.slowClients; n++) timers.push(setTimeout(slowClient, (n * 1000) / rates.slowClients));

  return {
    /** What happened since the last call. */
    takeWindow(): WindowFigures {
      const { latencies, unexpected, unexpectedByKind, skipped, slowClientsCut } = window;
      window = fresh();
      const all = KINDS.flatMap((kind) => latencies[kind]);
      return {
        answers: Object.fromEntries(KINDS.map((kind) => [kind, latencies[kind].length])) as Record<Kind, number>,
        p99Ms: { ...(Object.fromEntries(KINDS.map((kind) => [kind, p99Of(latencies[kind])])) as Record<Kind, number>), all: p99Of(all) },
        unexpected,
        unexpectedByKind,
        skipped,
        slowClientsCut,
      };
    },
    /** Stops sending and closes the slow clients. */
    stop() {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
    },
  };
};
