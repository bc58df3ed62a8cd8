/**
 * @module The service's own CPU time per list page on PostgreSQL beside the memory storage,
 * in process as serviceCost.ts measures it (no sockets, no load generator; the database's
 * CPU is its own process's, not counted). Three contenders on the same 10k bench animals:
 * memory; PostgreSQL answering pages as text built by the database (`listText`); and
 * PostgreSQL as before it, rows parsed into animals and serialised by the service.
 * Samples are taken from each in turn, so a busy spell of the shared machine falls on all.
 *
 *   npx tsx test/bench/postgresListCost.ts [--calls 2000] [--samples 7] [--only walk20,list20] [--concurrency 1]
 *
 * Prints, per operation and contender, the median and least CPU time per page, and the
 * ratio of each median to memory's.
 */
import { parseArgs } from 'node:util';
import { Request as ServerRequest, Response as ServerResponse } from '@whatwg-node/fetch';
import { nodeSha256 } from '../../adapters/node/serve.js';
import { createPetService } from '../../core/createPetService.js';
import type { PetStorage } from '../../core/PetStorage.js';
import { createMemoryStorage } from '../../storage/createMemoryStorage.js';
import { openPostgresStorage } from '../../storage/postgres/openPostgresStorage.js';
import { benchPet } from './benchData.js';
import { BENCH_SCHEMA, openBenchDatabase } from './benchDatabase.js';
import { BENCH_KEY, walkPaths } from './workloads.js';

const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '2000' },
    samples: { type: 'string', default: '7' },
    animals: { type: 'string', default: '10000' },
    only: { type: 'string' },
    concurrency: { type: 'string', default: '1' },
  },
});
const calls = Number(values.calls);
const concurrency = Number(values.concurrency);
const animals = Number(values.animals);

type Service = (request: Request) => Promise<Response>;
const serviceOn = (storage: PetStorage): Service =>
  createPetService({
    storage,
    keys: [BENCH_KEY],
    sha256: nodeSha256,
    fetchAPI: { Response: ServerResponse },
    logger: { warn: () => {}, error: (message: string, error: unknown) => console.error(message, error) },
  }) as unknown as Service;

const database = await openBenchDatabase(undefined);
await database.seed(animals);
const postgres = await openPostgresStorage({ connectionString: database.url, schema: BENCH_SCHEMA });
// The same storage without its text pages: lists go through `list` and the service's serialisation.
const { listText: _, ...postgresRows } = postgres;
const contenders: [string, Service][] = [
  ['memory', serviceOn(createMemoryStorage(Array.from({ length: animals }, (_, index) => benchPet(index + 1))))],
  ['postgres text', serviceOn(postgres)],
  ['postgres rows', serviceOn(postgresRows)],
];

const headers = { host: '127.0.0.1:8080', authorization: `Bearer ${BENCH_KEY}` };
const get = (path: string) => new ServerRequest(`http://localhost${path}`, { method: 'GET', headers }) as Request;

const walking = (first: string) => async (service: Service) => {
  const paths = await walkPaths((path) => service(get(path)), first);
  let page = 0;
  return () => get(paths[page++ % paths.length]!);
};
const REQUESTS: Record<string, (service: Service) => Promise<() => Request>> = {
  list20: async () => () => get('/v1/pets?limit=20'),
  walk20: walking('/v1/pets?limit=20'),
  list100sold: async () => () => get('/v1/pets?limit=100&status=sold'),
  walk100sold: walking('/v1/pets?limit=100&status=sold'),
};

/** `calls` pages, `concurrency` of them in flight at a time, as clients of a loaded server keep them. */
const run = async (service: Service, make: () => Request) => {
  let sent = 0;
  const client = async () => {
    while (sent++ < calls) {
      const response = await service(make());
      if (response.status !== 200) throw new Error(`answered ${response.status}: ${await response.text()}`);
      await response.text();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, client));
};

const median = (taken: number[]) => [...taken].sort((a, b) => a - b)[taken.length >> 1]!;
const only = values.only?.split(',');
try {
  process.stdout.write(
    `${animals} animals, ${calls} pages per sample, ${concurrency} at a time, ${values.samples} samples; ${database.description}\n`,
  );
  for (const [operation, makerOf] of Object.entries(REQUESTS)) {
    if (only && !only.includes(operation)) continue;
    const makers = await Promise.all(contenders.map(([, service]) => makerOf(service)));
    for (const [index, [, service]] of contenders.entries()) await run(service, makers[index]!);
    const samples = contenders.map((): number[] => []);
    for (let sample = 0; sample < Number(values.samples); sample++) {
      for (const [index, [, service]] of contenders.entries()) {
        const before = process.cpuUsage();
        await run(service, makers[index]!);
        const used = process.cpuUsage(before);
        samples[index]!.push((used.user + used.system) / calls);
      }
    }
    const memory = median(samples[0]!);
    for (const [index, [name]] of contenders.entries()) {
      const taken = samples[index]!;
      process.stdout.write(
        `${operation.padEnd(12)} ${name.padEnd(14)} ${median(taken).toFixed(1).padStart(7)} us per page (least ${Math.min(...taken).toFixed(1)}), ` +
          `${(median(taken) / memory).toFixed(2)}x memory\n`,
      );
    }
  }
} finally {
  await postgres.close();
  await database.close();
}
