/**
 * @module The results as Markdown: the machine and the load generator, the throughput
 * table with our ratios to bare node:http and to the library floor, the CPU each side used,
 * start-up, and the targets.
 */
import type { BenchResults, StartupFigures, WorkloadResult } from './results.js';
import { coreShared, formatCount, GENERATOR_BUSY_PERCENT, generatorBound, median, SHARED_CORE_POINTS } from './results.js';
import { CONTENDER_LABELS, CONTENDERS } from './servers.js';
import type { LoadFigures } from './workloads.js';

const number = (value: number) => (value > 0 && value < 10 ? value.toFixed(1) : Math.round(value).toLocaleString('en-US'));
const milliseconds = (value: number | undefined) =>
  value === undefined || !Number.isFinite(value) ? '–' : value < 10 ? value.toFixed(1) : Math.round(value).toLocaleString('en-US');
const microseconds = (value: number | undefined) =>
  value === undefined || !Number.isFinite(value) ? '–' : `${value < 10 ? value.toFixed(1) : Math.round(value).toLocaleString('en-US')} µs`;
const percent = (value: number | undefined) => (value === undefined || !Number.isFinite(value) ? '–' : `${Math.round(value)}%`);
const ratio = (value: number | undefined) =>
  value === undefined || !Number.isFinite(value)
    ? 'n/a'
    : value === 0
      ? '0×'
      : value < 0.001
        ? '< 0.001×'
        : value >= 10
          ? `${value.toFixed(0)}×`
          : value >= 0.1
            ? `${value.toFixed(2)}×`
            : `${value.toFixed(3)}×`;

/** `12,345/s (1.2 / 8.0 ms)`, with a warning when any answer failed or the generator was busy. */
const figures = (median: LoadFigures | undefined, failures: string[] | undefined) => {
  if (!median) return failures?.length ? 'failed' : '–';
  if (median.requestsPerSecond === 0) return 'no answer within a run';
  const trouble = median.non2xx + median.errors + median.timeouts;
  const warning =
    `${trouble > 0 ? ` ⚠ ${trouble} failed` : ''}${generatorBound(median) ? ' ⚠ generator-bound' : ''}` +
    `${coreShared(median) ? ' ⚠ core shared' : ''}`;
  return `${number(median.requestsPerSecond)}/s (${milliseconds(median.p50)} / ${milliseconds(median.p99)} ms)${warning}`;
};

/** The one-line description of the machine and the settings. */
export const describeRun = ({ machine, settings, quick, source }: BenchResults): string =>
  `${source ? `commit ${source}; ` : ''}${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}, ${machine.os}; ` +
  `${machine.pinning.note}; our server run as \`${settings.ourServer} serve\`; ${settings.connections} connections, ${settings.seconds} s per run after a ${settings.warmupSeconds} s warm-up, ` +
  `${settings.rounds} round${settings.rounds === 1 ? '' : 's'} alternating the servers, medians` +
  (quick ? ' — QUICK RUN: small catalogues, figures not meaningful' : '');

/**
 * Who set the pace, from the CPU samples: the bare server's share of its core against the
 * generator's share of its own, over every run of bare node:http.
 */
export const describeBottleneck = (results: BenchResults): string => {
  const bareRuns = results.workloads.flatMap((workload) => workload.contenders.baseline?.runs ?? []);
  const everyRun = results.workloads.flatMap((workload) => Object.values(workload.contenders).flatMap((figures) => figures.runs));
  const server = bareRuns.map((run) => run.serverCpu).filter((value): value is number => value !== undefined);
  const generator = everyRun.map((run) => run.generatorCpu).filter((value): value is number => value !== undefined);
  if (generator.length === 0) return 'CPU use was not sampled (it needs Linux /proc).';
  const busiest = Math.max(...generator);
  const core = median(bareRuns.map((run) => run.serverCoreBusy));
  const bare =
    server.length === 0
      ? 'bare node:http was not run; '
      : `over its runs, bare node:http's server process used a median of ${percent(median(server))} of its core (lowest ${percent(Math.min(...server))}` +
        `${Number.isFinite(core) ? `; the core was ${percent(core)} busy in all, other programs included` : ''}), while `;
  const shared = everyRun.filter(coreShared).length;
  return (
    `${bare}${results.generator.name} used at most ${percent(busiest)} of its own core in any run of any server: ` +
    (busiest < GENERATOR_BUSY_PERCENT
      ? 'the servers set the pace, not the generator.'
      : `the generator reached ${GENERATOR_BUSY_PERCENT}% and may have set the pace where marked "generator-bound".`) +
    (shared === 0
      ? ' No other program took a noticeable share of the server core.'
      : ` In ${shared} of ${everyRun.length} runs other programs took ${SHARED_CORE_POINTS} points or more of the server's core ` +
        '(the machine is shared): medians marked "core shared" understate that server, and the server CPU per request below is the steadier figure.')
  );
};

const operationOf = (workload: WorkloadResult) => workload.label.split(' · ')[0];

/** A start-up cell: milliseconds with the server's share of a core meanwhile, and resident memory. */
const startupCell = (figures: StartupFigures | undefined) => {
  if (!figures) return 'failed';
  const cpu = figures.serverCpu === undefined ? '' : ` (CPU ${percent(figures.serverCpu)}${coreShared(figures) ? ' ⚠ core shared' : ''})`;
  return `${milliseconds(figures.startupMs)} ms${cpu} / ${Math.round(figures.rssMiB)} MiB`;
};

/** The whole report as Markdown. */
export const markdownReport = (results: BenchResults): string => {
  const lines: string[] = [];
  lines.push(`**Machine and run:** ${describeRun(results)}.`, '');
  lines.push(`**Load generator:** ${results.generator.note}.`, '');
  if (results.postgres) {
    lines.push(
      `**PostgreSQL:** ${results.postgres}; its server processes are not pinned (they share the cores with the rest). Its rows are ours alone: the references have no database.`,
      '',
    );
  }
  lines.push(`**Is the generator the bottleneck?** CPU sampled from /proc during every run: ${describeBottleneck(results)}`, '');
  lines.push(
    `| Workload | Animals | ${CONTENDERS.map((id) => `${CONTENDER_LABELS[id]} req/s (p50 / p99)`).join(' | ')} | animal-store ÷ node:http | animal-store ÷ floor | floor ÷ node:http | json-server ÷ node:http |`,
    `|---|--:|${CONTENDERS.map(() => '--:').join('|')}|--:|--:|--:|--:|`,
  );
  for (const workload of results.workloads) {
    const cells = CONTENDERS.map((id) => figures(workload.contenders[id]?.median, workload.contenders[id]?.failures));
    const ratios = [
      workload.ratioToBaseline.ours,
      workload.ratioToFloor.ours,
      workload.ratioToBaseline.floor,
      workload.ratioToBaseline.jsonServer,
    ];
    // PostgreSQL's rows have no reference to divide by: a dash, as for a contender without
    // the storage or left out of the row (json-server on the file grown by creates).
    const ratioOf = ['ours', 'ours', 'floor', 'jsonServer'] as const;
    const ratioCells =
      workload.storage === 'postgres'
        ? ratios.map(() => '–')
        : ratios.map((value, index) => (workload.contenders[ratioOf[index]!] === undefined ? '–' : ratio(value)));
    lines.push(`| ${operationOf(workload)} | ${formatCount(workload.animals)} | ${cells.join(' | ')} | ${ratioCells.join(' | ')} |`);
  }
  lines.push(
    '',
    `CPU during the runs, medians: the server process / ${results.generator.name} (the load generator), in % of one core, ` +
      "and the server's CPU time per response, which other programs' share of the core does not change; " +
      "the last column is animal-store's own cost per request: its CPU time per response above the floor's.",
    '',
    `| Workload · animals | ${CONTENDERS.map((id) => CONTENDER_LABELS[id]).join(' | ')} | animal-store − floor |`,
    `|---|${CONTENDERS.map(() => '--:').join('|')}|--:|`,
  );
  for (const workload of results.workloads) {
    const cells = CONTENDERS.map((id) => {
      const median = workload.contenders[id]?.median;
      return median ? `${percent(median.serverCpu)} / ${percent(median.generatorCpu)} · ${microseconds(median.serverUsPerRequest)}` : '–';
    });
    const ours = workload.contenders.ours?.median?.serverUsPerRequest;
    const floor = workload.contenders.floor?.median?.serverUsPerRequest;
    const own = ours !== undefined && floor !== undefined ? `${ours - floor >= 0 ? '+' : '−'}${microseconds(Math.abs(ours - floor))}` : '–';
    lines.push(`| ${operationOf(workload)} · ${formatCount(workload.animals)} | ${cells.join(' | ')} | ${own} |`);
  }
  if (results.startup.length > 0) {
    lines.push(
      '',
      `| Start-up (spawn → listening, with the server's share of a core meanwhile) / resident memory after start | ${CONTENDERS.map((id) => CONTENDER_LABELS[id]).join(' | ')} |`,
    );
    lines.push(`|---|${CONTENDERS.map(() => '--:').join('|')}|`);
    for (const startup of results.startup) {
      const cells = CONTENDERS.map((id) => startupCell(startup.contenders[id]));
      lines.push(`| ${formatCount(startup.animals)} animals in the file | ${cells.join(' | ')} |`);
    }
    for (const startup of results.startup) {
      if (!startup.oursOnPostgres) continue;
      const cells = CONTENDERS.map((id) => (id === 'ours' ? startupCell(startup.oursOnPostgres) : '–'));
      lines.push(`| ${formatCount(startup.animals)} animals in PostgreSQL | ${cells.join(' | ')} |`);
    }
  }
  if (results.targets.length > 0) {
    lines.push('', '| Target | Measured | Holds |', '|---|---|:-:|');
    for (const target of results.targets) {
      const holds = !results.judgement.judged ? 'not judged' : target.holds === undefined ? 'n/a' : target.holds ? 'yes' : '**no**';
      lines.push(
        `| ${target.target} | ${target.measured} | ${holds}${results.judgement.judged && target.caveat ? ` (${target.caveat})` : ''} |`,
      );
    }
    if (!results.judgement.judged) lines.push('', `Targets not judged: ${results.judgement.why}.`);
  }
  return `${lines.join('\n')}\n`;
};
