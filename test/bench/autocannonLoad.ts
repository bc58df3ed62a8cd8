/**
 * @module Loads a server with autocannon in this process: the fallback when wrk is missing.
 * On one core autocannon is slower than a bare node:http server, so what it measures is
 * largely itself: its figures are never judged.
 */
import { createRequire } from 'node:module';
import autocannon from 'autocannon';
import { startCpuSampling } from './cpuSampling.js';
import {
  CREATE,
  type LoadFigures,
  type LoadRequest,
  type LoadSettings,
  loadRequestOf,
  type Operation,
  settle,
  usPerRequest,
} from './workloads.js';
import type { LoadTarget } from './wrkLoad.js';

/** autocannon's version, from its package.json. */
export const autocannonVersion = (): string => (createRequire(import.meta.url)('autocannon/package.json') as { version: string }).version;

/** A walk in autocannon's terms: its pages in turn, every `createEvery`-th request a create. */
const walkRequest = ({ headers, paths, createEvery }: LoadRequest): autocannon.Request => {
  let sent = 0;
  let page = 0;
  return {
    method: 'GET',
    path: paths![0]!,
    headers,
    setupRequest: (request: autocannon.Request) => {
      sent++;
      if (createEvery !== undefined && sent % createEvery === 0) {
        return { ...request, method: 'POST', path: CREATE.path, headers: { ...headers, ...CREATE.headers }, body: CREATE.body };
      }
      page = (page + 1) % paths!.length;
      return { ...request, method: 'GET', path: paths![page]!, headers, body: undefined };
    },
  };
};

/** The operation's request in autocannon's terms. */
const autocannonRequest = (load: LoadRequest): autocannon.Request => {
  if (load.paths !== undefined) return walkRequest(load);
  const { method, path, headers, body, randomIdUpTo } = load;
  return {
    method,
    path: randomIdUpTo === undefined ? path : `${path}1`,
    headers,
    ...(body === undefined ? {} : { body }),
    ...(randomIdUpTo === undefined
      ? {}
      : {
          setupRequest: (request: autocannon.Request) => ({ ...request, path: `${path}${1 + Math.floor(Math.random() * randomIdUpTo)}` }),
        }),
  };
};

/** Loads the target with one operation for a fixed time and returns the figures. */
export const runAutocannon = async (
  target: LoadTarget,
  operation: Operation,
  animals: number,
  settings: LoadSettings,
): Promise<LoadFigures> => {
  const sampling = startCpuSampling({
    serverPid: target.serverPid,
    generatorPid: process.pid,
    serverCore: target.pinning.serverCpu,
    loadCore: target.pinning.loadCpu,
  });
  const result = await autocannon({
    url: target.origin,
    connections: settings.connections,
    duration: settings.seconds,
    requests: [autocannonRequest(await loadRequestOf(target.origin, operation, animals))],
    // Never give up early; a slow contender is measured, not skipped.
    timeout: 30,
    // autocannon only stops on a sample tick: tick often so short runs last what they say.
    sampleInt: 100,
  });
  const cpu = sampling.stop();
  await settle(target.origin);
  const answered = result['2xx'] + result.non2xx > 0;
  const requestsPerSecond = result['2xx'] / Math.max(result.duration, 0.001);
  return {
    requestsPerSecond,
    p50: answered ? result.latency.p50 : NaN,
    p90: answered ? result.latency.p90 : NaN,
    p99: answered ? result.latency.p99 : NaN,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    ...cpu,
    serverUsPerRequest: usPerRequest(cpu.serverCpu, requestsPerSecond),
  };
};
