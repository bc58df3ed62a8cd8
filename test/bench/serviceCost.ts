/**
 * @module The service's own CPU time per request, in process: no sockets, no HTTP parser,
 * no load generator, so a change to the core shows in nanoseconds that a shared machine's
 * noise would hide from `npm run bench`. Each call builds a `@whatwg-node/fetch` Request as
 * the standalone server does and awaits the service's Response (the body is not written).
 * The service is built as `serve()` builds it, on 10k bench animals in memory.
 *
 *   npx tsx test/bench/serviceCost.ts                         this checkout
 *   npx tsx test/bench/serviceCost.ts --source /tmp/copy      another checkout (its node_modules linked)
 *   npx tsx test/bench/serviceCost.ts --source /tmp/before --source .
 *                                                             several, their samples taken in turn
 *   npx tsx test/bench/serviceCost.ts --only getById,list20 --calls 20000 --samples 7
 *
 * Prints, per operation, the median and the least CPU time (all threads: the garbage
 * collector's too) per call over the samples.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Request as ServerRequest, Response as ServerResponse } from '@whatwg-node/fetch';
import { benchPet } from './benchData.js';
import { REPO_ROOT } from './servers.js';
import { BENCH_KEY, MIXED_CREATE_EVERY, type Operation, walkPaths } from './workloads.js';

const { values } = parseArgs({
  options: {
    source: { type: 'string', multiple: true, default: [] },
    only: { type: 'string' },
    calls: { type: 'string', default: '20000' },
    samples: { type: 'string', default: '7' },
    animals: { type: 'string', default: '10000' },
  },
});
const sources = (values.source.length === 0 ? [REPO_ROOT] : values.source).map((source) => resolve(source));
const calls = Number(values.calls);
const animals = Number(values.animals);

/** The service of a checkout: its TypeScript, or the JavaScript of a tsc build; as `serve()` builds it. */
const serviceOf = async (source: string) => {
  const load = (path: string) => {
    const built = join(source, path.replace(/\.ts$/, '.js'));
    return import(pathToFileURL(existsSync(built) ? built : join(source, path)).href);
  };
  const { createPetService } = await load('core/index.ts');
  const { createMemoryStorage } = await load('storage/createMemoryStorage.ts');
  const { nodeSha256 } = await load('adapters/node/serve.ts');
  return createPetService({
    storage: createMemoryStorage(Array.from({ length: animals }, (_, index) => benchPet(index + 1))),
    keys: [BENCH_KEY],
    sha256: nodeSha256,
    fetchAPI: { Response: ServerResponse },
    logger: { warn: () => {}, error: (message: string, error: unknown) => console.error(message, error) },
  }) as (request: Request) => Promise<Response>;
};
const services = await Promise.all(sources.map(serviceOf));

const headers = { host: '127.0.0.1:8080', authorization: `Bearer ${BENCH_KEY}` };
const get = (path: string) => new ServerRequest(`http://localhost${path}`, { method: 'GET', headers }) as Request;
const BODY = JSON.stringify({ name: 'Bench Rex', categoryId: 7 });
let next = 0;
/** A create; with `keyed`, carrying a new Idempotency-Key, as the kiosk page and our client send. */
const post = (keyed = false) =>
  new ServerRequest('http://localhost/v1/pets', {
    method: 'POST',
    headers: {
      ...headers,
      'content-type': 'application/json',
      'content-length': String(BODY.length),
      ...(keyed ? { 'idempotency-key': `"bench-${next++}"` } : {}),
    },
    body: BODY,
    duplex: 'half',
  } as RequestInit) as Request;
type Service = (request: Request) => Promise<Response>;
/** A request maker that walks a checkout's pages round and round, every `createEvery`-th request a create instead. */
const walking = (first: string, createEvery?: number) => async (service: Service) => {
  const paths = await walkPaths((path) => service(get(path)), first);
  let sent = 0;
  let page = 0;
  return () => (createEvery !== undefined && ++sent % createEvery === 0 ? post() : get(paths[page++ % paths.length]!));
};
const REQUESTS: Partial<Record<Operation | 'createMemoryKeyed', (service: Service) => Promise<() => Request>>> = {
  list20: async () => () => get('/v1/pets?limit=20'),
  walk20: walking('/v1/pets?limit=20'),
  list100sold: async () => () => get('/v1/pets?limit=100&status=sold'),
  walk100sold: walking('/v1/pets?limit=100&status=sold'),
  // Ids spread over the catalogue, as the bench's random ones are.
  getById: async () => () => get(`/v1/pets/${1 + ((next++ * 7919) % animals)}`),
  mixed: walking('/v1/pets?limit=20', MIXED_CREATE_EVERY),
  createMemory: async () => () => post(),
  createMemoryKeyed: async () => () => post(true),
};

const run = async (service: Service, make: () => Request) => {
  for (let i = 0; i < calls; i++) {
    const response = await service(make());
    if (response.status >= 300) throw new Error(`answered ${response.status}: ${await response.text()}`);
  }
};

const only = values.only?.split(',');
for (const [operation, makerOf] of Object.entries(REQUESTS)) {
  if (only && !only.includes(operation)) continue;
  const makers = await Promise.all(services.map(makerOf));
  // Warm-up (optimised code, grown caches), then samples taken from each checkout in turn,
  // so that a busy spell of the machine falls on all of them alike.
  for (const [index, service] of services.entries()) await run(service, makers[index]!);
  const samples = services.map((): number[] => []);
  for (let sample = 0; sample < Number(values.samples); sample++) {
    for (const [index, service] of services.entries()) {
      const before = process.cpuUsage();
      await run(service, makers[index]!);
      const used = process.cpuUsage(before);
      samples[index]!.push(((used.user + used.system) * 1000) / calls);
    }
  }
  for (const [index, taken] of samples.entries()) {
    taken.sort((a, b) => a - b);
    const name = sources.length === 1 ? operation : `${operation} ${values.source[index] ?? ''}`;
    process.stdout.write(
      `${name.padEnd(13)} ${taken[taken.length >> 1]!.toFixed(0).padStart(6)} ns per call (least ${taken[0]!.toFixed(0)})\n`,
    );
  }
}
