/**
 * @module Throughput: every round starts each contender on each group's catalogue and storage
 * in turn (A B C D A B C D …), checks each operation's answer, warms up and loads it with the
 * load generator; then medians and our ratios to bare node:http and to the library floor.
 */
import type { BenchContext } from './benchContext.js';
import { errorText } from './benchContext.js';
import type { LoadGenerator } from './loadGenerator.js';
import { type ContenderFigures, formatCount, medianFigures, type Scale, type WorkloadId, type WorkloadResult } from './results.js';
import { CONTENDER_LABELS, type ContenderId, type RunningServer, STORAGES_OF, type StorageKind, startServer } from './servers.js';
import { checkAnswer, GROWN_LOAD_SECONDS, type LoadSettings, OPERATION_LABELS, type Operation, seedOverHttp } from './workloads.js';

/** Servers are started once per group and run its operations in order (creates last). */
export interface Group {
  scale: Scale;
  storage: StorageKind;
  operations: Operation[];
  /**
   * Start every contender empty and give it the group's animals through concurrent creates
   * over HTTP (as our memory server always is), so its file is what the server itself wrote.
   */
  seeded?: boolean;
  /** Only these contenders (json-server would take minutes to be seeded). */
  contenders?: ContenderId[];
}

/** The groups of every run; `postgres` ones only when the run has a database. */
export const GROUPS: Group[] = [
  {
    scale: 'medium',
    storage: 'file',
    operations: ['list20', 'walk20', 'list100sold', 'walk100sold', 'getById', 'mixed', 'createDurable'],
  },
  { scale: 'medium', storage: 'memory', operations: ['createMemory'] },
  { scale: 'medium', storage: 'file', operations: ['createGrown'], seeded: true, contenders: ['ours', 'baseline', 'floor'] },
  { scale: 'small', storage: 'file', operations: ['list20', 'list100sold'] },
  { scale: 'large', storage: 'file', operations: ['list20', 'list100sold', 'createDurable'] },
  { scale: 'medium', storage: 'postgres', operations: ['list20', 'list100sold', 'getById', 'createDurable'] },
  { scale: 'large', storage: 'postgres', operations: ['list20', 'list100sold', 'createDurable'] },
];

/** A workload's id: the storage is named only for PostgreSQL, so file and memory ids read as they always have. */
export const workloadId = (operation: Operation, scale: Scale, storage: StorageKind): WorkloadId =>
  storage === 'postgres' ? `${operation}@${scale}@postgres` : `${operation}@${scale}`;

/** The table's label of an operation on a storage. */
const labelOf = (operation: Operation, storage: StorageKind) =>
  storage === 'postgres' ? `${OPERATION_LABELS[operation].replace(/ \(.*\)$/, '')} (PostgreSQL)` : OPERATION_LABELS[operation];

const OPERATION_ORDER: Operation[] = [
  'list20',
  'walk20',
  'list100sold',
  'walk100sold',
  'getById',
  'mixed',
  'createMemory',
  'createDurable',
  'createGrown',
];
const SCALE_ORDER: Scale[] = ['small', 'medium', 'large'];
/** The table's order: each operation together, file before PostgreSQL, small to large catalogues. */
export const inTableOrder = (a: WorkloadResult, b: WorkloadResult): number =>
  OPERATION_ORDER.indexOf(a.operation) - OPERATION_ORDER.indexOf(b.operation) ||
  Number(a.storage === 'postgres') - Number(b.storage === 'postgres') ||
  SCALE_ORDER.indexOf(a.scale) - SCALE_ORDER.indexOf(b.scale);

/** What to run and how hard. */
export interface ThroughputPlan {
  groups: Group[];
  sizes: Record<Scale, number>;
  selected(operation: Operation, scale: Scale): boolean;
  rounds: number;
  warmupSeconds: number;
  load: LoadSettings;
  generator: LoadGenerator;
}

/** Ours divided by each reference, for every workload that has both figures. */
export const computeRatios = (workload: WorkloadResult): void => {
  const rps = (id: ContenderId) => workload.contenders[id]?.median?.requestsPerSecond;
  const bare = rps('baseline');
  const floor = rps('floor');
  workload.ratioToBaseline = {};
  workload.ratioToFloor = {};
  for (const contender of ['ours', 'floor', 'jsonServer'] as const) {
    const value = rps(contender);
    if (value !== undefined && bare) workload.ratioToBaseline[contender] = value / bare;
  }
  const ours = rps('ours');
  if (ours !== undefined && floor) workload.ratioToFloor.ours = ours / floor;
};

/** Runs every round and returns the workloads in table order, medians and ratios filled in. */
export const measureThroughput = async (context: BenchContext, plan: ThroughputPlan): Promise<WorkloadResult[]> => {
  const groups = plan.groups
    .map((group) => ({ ...group, operations: group.operations.filter((operation) => plan.selected(operation, group.scale)) }))
    .filter((group) => group.operations.length > 0);
  const workloads = new Map<WorkloadId, WorkloadResult>();
  for (const group of groups) {
    for (const operation of group.operations) {
      const id = workloadId(operation, group.scale, group.storage);
      const animals = plan.sizes[group.scale];
      workloads.set(id, {
        id,
        operation,
        scale: group.scale,
        storage: group.storage,
        animals,
        label: `${labelOf(operation, group.storage)} · ${formatCount(animals)}`,
        contenders: {},
        ratioToBaseline: {},
        ratioToFloor: {},
      });
    }
  }
  const figuresOf = (id: WorkloadId, contender: ContenderId): ContenderFigures => {
    const workload = workloads.get(id)!;
    workload.contenders[contender] ??= { runs: [], median: undefined, failures: [] };
    return workload.contenders[contender];
  };

  for (let round = 1; round <= plan.rounds; round++) {
    for (const group of groups) {
      const animals = plan.sizes[group.scale];
      const data = await context.dataFor(group.seeded ? 0 : animals);
      const contenders = context.contenders.filter(
        (id) => STORAGES_OF[id].includes(group.storage) && (group.contenders ?? [id]).includes(id),
      );
      for (const contender of contenders) {
        const name = `round ${round}/${plan.rounds} ${CONTENDER_LABELS[contender]} @ ${formatCount(animals)} ${group.storage}`;
        let server: RunningServer | undefined;
        try {
          // Every start on PostgreSQL finds exactly the group's animals, as a copy of the file would hold.
          if (group.storage === 'postgres') await context.database!.seed(animals);
          server = await startServer(contender, {
            data,
            storage: group.storage,
            databaseUrl: context.database?.url,
            workDir: context.workDir(),
            pinning: context.pinning,
            compiledDir: context.compiledDir,
            ...(context.profileDir && contender === 'ours' ? { profileDir: context.profileDir } : {}),
          });
          // Our memory server starts empty; the others load the same animals from the file.
          if (group.seeded || (contender === 'ours' && group.storage === 'memory')) {
            await seedOverHttp(server.origin, animals, plan.load.connections);
          }
          const target = { origin: server.origin, serverPid: server.pid, pinning: context.pinning };
          for (const operation of group.operations) {
            const id = workloadId(operation, group.scale, group.storage);
            try {
              await checkAnswer(server.origin, operation);
              // The grown file is loaded as issue 21's procedure loads it: no warm-up, a few seconds.
              const grown = operation === 'createGrown';
              if (plan.warmupSeconds > 0 && !grown) {
                await plan.generator.run(target, operation, animals, { connections: plan.load.connections, seconds: plan.warmupSeconds });
              }
              const load = grown ? { ...plan.load, seconds: Math.min(plan.load.seconds, GROWN_LOAD_SECONDS) } : plan.load;
              const figures = await plan.generator.run(target, operation, animals, load);
              figuresOf(id, contender).runs.push(figures);
              const trouble = figures.non2xx + figures.errors + figures.timeouts;
              const cpu = (value: number | undefined) => (value === undefined ? '?' : `${Math.round(value)}%`);
              context.log(
                `${name} ${operation}: ${Math.round(figures.requestsPerSecond)}/s p50 ${figures.p50.toFixed(2)} p99 ${figures.p99.toFixed(2)} ms; ` +
                  `CPU server ${cpu(figures.serverCpu)} (core ${cpu(figures.serverCoreBusy)}), ${plan.generator.name} ${cpu(figures.generatorCpu)}` +
                  (trouble > 0 ? ` (failed: ${figures.non2xx} status, ${figures.errors} errors, ${figures.timeouts} timeouts)` : ''),
              );
            } catch (error) {
              context.failed();
              figuresOf(id, contender).failures.push(errorText(error));
              context.log(`${name} ${operation} FAILED: ${errorText(error)}`);
            }
          }
        } catch (error) {
          context.failed();
          for (const operation of group.operations) {
            figuresOf(workloadId(operation, group.scale, group.storage), contender).failures.push(errorText(error));
          }
          context.log(`${name} FAILED: ${errorText(error)}`);
        } finally {
          await server?.stop();
        }
      }
    }
  }

  for (const workload of workloads.values()) {
    for (const figures of Object.values(workload.contenders)) figures.median = medianFigures(figures.runs);
    computeRatios(workload);
  }
  return [...workloads.values()].sort(inTableOrder);
};
