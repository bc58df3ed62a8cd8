/** @module The results as Markdown: the machine, the throughput table, start-up and targets. */
import type { BenchResults } from './results.js';
import { formatCount } from './results.js';
import { CONTENDER_LABELS, CONTENDERS } from './servers.js';
import type { LoadFigures } from './workloads.js';

const number = (value: number) => (value > 0 && value < 10 ? value.toFixed(1) : Math.round(value).toLocaleString('en-US'));
const milliseconds = (value: number) =>
  !Number.isFinite(value) ? '–' : value < 10 ? value.toFixed(1) : Math.round(value).toLocaleString('en-US');
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

/** `12,345 req/s (p50 3.1 / p99 8.0 ms)`, with a warning when any answer was not 2xx. */
const figures = (median: LoadFigures | undefined, failures: string[] | undefined) => {
  if (!median) return failures?.length ? 'failed' : 'n/a';
  if (median.requestsPerSecond === 0) return 'no answer within a run';
  const trouble = median.non2xx + median.errors + median.timeouts;
  const warning = trouble > 0 ? ` ⚠ ${trouble} non-2xx/errors` : '';
  return `${number(median.requestsPerSecond)}/s (${milliseconds(median.p50)} / ${milliseconds(median.p99)} ms)${warning}`;
};

/** The one-line description of the machine and the settings. */
export const describeRun = ({ machine, settings, quick, source }: BenchResults): string =>
  `${source ? `commit ${source}; ` : ''}${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}, ${machine.os}; ` +
  `${machine.pinning.note}; our server run as \`${settings.ourServer} serve\`; ${settings.connections} connections, ${settings.seconds} s per run after a ${settings.warmupSeconds} s warm-up, ` +
  `${settings.rounds} round${settings.rounds === 1 ? '' : 's'} alternating the servers, medians` +
  (quick ? ' — QUICK RUN: small catalogues, figures not meaningful' : '');

/** The whole report as Markdown. */
export const markdownReport = (results: BenchResults): string => {
  const lines: string[] = [];
  lines.push(`**Machine and run:** ${describeRun(results)}.`, '');
  lines.push(
    `| Workload | Animals | ${CONTENDERS.map((id) => `${CONTENDER_LABELS[id]} req/s (p50 / p99)`).join(' | ')} | animal-store ÷ node:http | json-server ÷ node:http |`,
    `|---|--:|${CONTENDERS.map(() => '--:').join('|')}|--:|--:|`,
  );
  for (const workload of results.workloads) {
    const cells = CONTENDERS.map((id) => figures(workload.contenders[id]?.median, workload.contenders[id]?.failures));
    lines.push(
      `| ${workload.label.split(' · ')[0]} | ${formatCount(workload.animals)} | ${cells.join(' | ')} | ${ratio(workload.ratioToBaseline.ours)} | ${ratio(workload.ratioToBaseline.jsonServer)} |`,
    );
  }
  if (results.startup.length > 0) {
    lines.push(
      '',
      `| Start-up (spawn → listening) / resident memory after start | ${CONTENDERS.map((id) => CONTENDER_LABELS[id]).join(' | ')} |`,
    );
    lines.push(`|---|${CONTENDERS.map(() => '--:').join('|')}|`);
    for (const startup of results.startup) {
      const cells = CONTENDERS.map((id) => {
        const figures = startup.contenders[id];
        return figures ? `${milliseconds(figures.startupMs)} ms / ${Math.round(figures.rssMiB)} MiB` : 'failed';
      });
      lines.push(`| ${formatCount(startup.animals)} animals in the file | ${cells.join(' | ')} |`);
    }
  }
  if (results.targets.length > 0) {
    lines.push('', '| Target | Measured | Holds |', '|---|---|:-:|');
    for (const target of results.targets) {
      lines.push(`| ${target.target} | ${target.measured} | ${target.holds === undefined ? 'n/a' : target.holds ? 'yes' : '**no**'} |`);
    }
  }
  return `${lines.join('\n')}\n`;
};
