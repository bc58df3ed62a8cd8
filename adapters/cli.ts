#!/usr/bin/env node
/**
 * @module The `animal-store` command: the one place that builds a storage, the service and
 * a server, and ties them to the process (signals, exit codes, output). Its pieces, one job
 * each, are in adapters/cli/.
 */
import path from 'node:path';
import { generateApiKey } from '../core/auth/apiKeys.js';
import { copyPets } from '../storage/copyPets.js';
import { TargetNotEmptyError } from '../storage/PetContent.js';
import { reasonOf } from '../storage/reasonOf.js';
import { collectKeys, toApiKey } from './cli/collectKeys.js';
import type { CopySettings } from './cli/copyCommand.js';
import { createBrowserKioskRoute } from './cli/createBrowserKioskRoute.js';
import { type CliLog, createCliLog, type LogStream } from './cli/createCliLog.js';
import { createKeyReload } from './cli/createKeyReload.js';
import { createLineWriter, type LineWriter } from './cli/createLineWriter.js';
import { createTestControl } from './cli/createTestControl.js';
import { folderGivenAsFile } from './cli/folderGivenAsFile.js';
import { importPets, readAnimalList } from './cli/importPets.js';
import { type InitWorkerSettings, initWorker } from './cli/initWorkerCommand.js';
import { openStorage } from './cli/openStorage.js';
import { parseCommandLine } from './cli/parseCommandLine.js';
import { readCursorSecret } from './cli/readCursorSecret.js';
import { reloadOnHangup } from './cli/reloadOnHangup.js';
import type { ServeSettings } from './cli/serveCommand.js';
import { startFailure } from './cli/startFailure.js';
import { stopPretenuring } from './cli/stopPretenuring.js';
import { UsageError } from './cli/UsageError.js';
import { watchKeyFiles } from './cli/watchKeyFiles.js';
import { watchParent } from './cli/watchParent.js';
import { writeKeyFile } from './cli/writeKeyFile.js';
import { createPrometheusMetrics } from './node/createPrometheusMetrics.js';
import { nodeSha256, serve } from './node/serve.js';
import { startReplicator } from './sync/startReplicator.js';
import { createTestCatalogue } from './testing/createTestCatalogue.js';
import { loadSeedFile } from './testing/loadSeedFile.js';
import { isInjectedFault } from './testing/withFaults.js';

const out = (line: string) => process.stdout.write(`${line}\n`);
const err = (line: string) => process.stderr.write(`${line}\n`);

/** The usage line of each command, printed after a command-line mistake. */
const USAGE_LINES = {
  serve: 'Usage: animal-store serve [options] [FILE]   (animal-store --help lists every option)',
  copy: 'Usage: animal-store copy --from PLACE --to PLACE [--replace] [--schema NAME]',
  'init-worker': 'Usage: animal-store init-worker DIR',
};

/**
 * Starts the server the settings describe: keys and secrets first (a mistake there is found
 * before anything is opened), then the storage, the service and the server. Resolves once
 * it listens; throws when it cannot start.
 */
const start = async (settings: ServeSettings, { log, writers }: ServeOutput) => {
  const warn = (message: string) => log.warn(message);
  const configured = await collectKeys(settings.keys, settings.keyFiles, warn);
  const cursorSecret = await readCursorSecret(settings.cursorSecret?.value, settings.cursorSecretFile, warn);
  const metrics = settings.metrics ? await createPrometheusMetrics() : undefined;
  metrics?.watchDroppedLogLines(() => ({ stdout: writers.stdout.droppedLines(), stderr: writers.stderr.droppedLines() }));
  const seed = settings.seedFile === undefined ? undefined : await loadSeedFile(settings.seedFile);
  // The server never runs open: with no key configured, it makes one for this run.
  const generated = configured.length === 0 ? generateApiKey() : undefined;
  const keys = generated === undefined ? configured.map(toApiKey) : [generated];

  const testCatalogue = settings.testMode ? createTestCatalogue({ seed: seed ?? [], keys }) : undefined;
  const testControl =
    testCatalogue &&
    createTestControl(testCatalogue, {
      keys,
      sha256: nodeSha256,
      delay: settings.delay,
      reportError: (message, error) => log.error(message, error),
    });
  const kioskRoute = settings.browserKiosk ? await createBrowserKioskRoute(settings.basePath) : undefined;
  const storage = testCatalogue?.storage ?? (await openStorage(settings.storage, { seed, onCommit: metrics?.observeCommit, warn }));
  stopPretenuring();
  let replicator: Awaited<ReturnType<typeof startReplicator>> | undefined;
  try {
    if (settings.sync) {
      const { hub, key, intervalSeconds, waitSeconds } = settings.sync;
      replicator = await startReplicator({ storage, hub, key, intervalSeconds, waitSeconds, log: { info: log.info, warn: log.warn } });
      metrics?.watchSync(replicator.status);
    }
    const keyFile =
      generated !== undefined && settings.storage.kind === 'file' ? await writeKeyFile(settings.storage.file, generated) : undefined;
    const server = await serve({
      // A kiosk's, so that creates refused for want of ids say why the hub gives none.
      storage: replicator?.storage ?? storage,
      keys,
      host: settings.host,
      port: settings.port,
      basePath: settings.basePath,
      ...settings.limits,
      exemptAddresses: settings.exemptAddresses,
      ...(cursorSecret === undefined ? {} : { cursorSecret }),
      ...(settings.corsOrigins.length > 0 ? { cors: { origins: settings.corsOrigins } } : {}),
      ...(settings.rateLimit === undefined ? {} : { rateLimit: settings.rateLimit }),
      idempotency: settings.idempotency,
      // Every answer carries X-Request-Id, so a client can quote it; JSON access lines name it too.
      requestIds: true,
      ...(metrics === undefined ? {} : { metrics }),
      ...(replicator === undefined ? {} : { sync: { status: replicator.status } }),
      ...(testControl === undefined && kioskRoute === undefined
        ? {}
        : { intercept: async (request: Request) => (await kioskRoute?.(request)) ?? (await testControl?.(request)) }),
      logger: {
        ...(log.access === undefined ? {} : { access: log.access }),
        warn,
        // Failures a test asked for are expected, not news.
        error: (message, error) => (isInjectedFault(error) ? undefined : log.error(message, error)),
      },
    });
    if (generated !== undefined) {
      // stderr, never stdout: stdout is the access log, which must never hold a key.
      log.warn(`no API key configured; generated one for this run: ${generated}`, keyFile === undefined ? {} : { apiKeyFile: keyFile });
      log.warn(
        `${keyFile === undefined ? '' : `it is also in ${path.relative('.', keyFile) || keyFile} (mode 0600); `}` +
          'give your own with --api-key-file FILE or ANIMAL_STORE_API_KEYS=KEY1,KEY2',
      );
    }
    const running = replicator;
    // The replicator stops first, so its last round ends before the storage closes.
    if (running === undefined) return server;
    const close = async () => {
      await running.stop();
      await server.close();
    };
    return { ...server, close };
  } catch (error) {
    await replicator?.stop();
    await storage.close();
    throw error;
  }
};

/** What a server writes through: its log, over writers that drop what a stalled reader cannot take. */
interface ServeOutput {
  log: CliLog;
  writers: Record<LogStream, LineWriter>;
}

/**
 * The log of a server. Its lines go through bounded writers: a reader that stalls (stdout
 * into a pipe nobody reads) costs dropped lines, counted and reported, never memory.
 */
const createServeOutput = (settings: ServeSettings): ServeOutput => {
  const writerOf = (stream: NodeJS.WriteStream, name: LogStream) =>
    createLineWriter(stream, { maxBufferedBytes: settings.maxLogBuffer, onRecovered: (lines) => log.dropped(name, lines) });
  const writers = { stdout: writerOf(process.stdout, 'stdout'), stderr: writerOf(process.stderr, 'stderr') };
  // Lines wait for the end of their turn; the last turn's are written before the process ends.
  process.once('exit', () => {
    writers.stdout.flush();
    writers.stderr.flush();
  });
  const log = createCliLog({ format: settings.logFormat, quiet: settings.quiet, out: writers.stdout.write, err: writers.stderr.write });
  return { log, writers };
};

/** How soon after a signal npm's copy of it arrives, at most: a second signal later than this is a person's. */
const NPM_COPY_MS = 500;

/** `animal-store serve`: serves until SIGTERM or SIGINT (SIGHUP does not stop it), then exits 0; exits 1 when it cannot start. */
const run = async (settings: ServeSettings) => {
  const output = createServeOutput(settings);
  const { log } = output;
  // Operators send SIGHUP to reload; it must never end the server, not even while it starts.
  const reloadOnHangupWith = reloadOnHangup(log);
  let server: Awaited<ReturnType<typeof start>>;
  try {
    server = await start(settings, output);
  } catch (error) {
    const message = startFailure(error, settings);
    if (settings.logFormat === 'json') log.error(message);
    else err(`animal-store: ${message}`);
    process.exit(1);
  }
  log.info(`listening on ${server.url}`, { url: server.url });

  const startedByNpm = process.env.npm_command !== undefined;
  /** Why and when the stop began, and whether npm's copy of its signal came since. */
  let stopping: { why: string; at: number; copied: boolean } | undefined;
  /** Stops for `why`: a signal's name, or the parent's end. */
  const stop = (why: string) => {
    if (stopping) {
      // Ctrl-C in a terminal signals npm and the server alike, and npm passes its signal on:
      // under npm, one repeat of the same signal right after it is that copy, not a second press.
      const copy = startedByNpm && !stopping.copied && why === stopping.why && performance.now() - stopping.at < NPM_COPY_MS;
      if (copy) {
        stopping.copied = true;
        return;
      }
      log.error(`${why} again: exiting without waiting`);
      process.exit(1);
    }
    stopping = { why, at: performance.now(), copied: false };
    if (!settings.quiet) log.info(`${why}: finishing in-flight requests, then stopping`);
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error(`error while stopping: ${reasonOf(error)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  const reloadKeys = createKeyReload(settings, server.service.keys, log);
  reloadOnHangupWith(() => reloadKeys('SIGHUP'));
  if (settings.keyFiles.length > 0) watchKeyFiles(settings.keyFiles, () => reloadKeys('a keys file changed'));
  // Started by npm (npx, npm exec, npm start): stopping npm stops the server, even where the
  // signal never reaches it (npx runs the bin through a shell that does not pass it on).
  if (startedByNpm) watchParent(() => stop('npm, which started the server, has stopped'));
};

/** `animal-store init-worker DIR`: writes the worker script, says where, or why not (exit 1). */
const writeWorker = async (settings: InitWorkerSettings) => {
  try {
    const file = await initWorker(settings);
    out(`wrote ${file}; in the page: await startWorker({ keys: [...] }) from 'animal-store/browser'`);
  } catch (error) {
    err(`animal-store: ${reasonOf(error)}`);
    process.exit(1);
  }
};

/** `animal-store copy`: one line saying what was copied, or why nothing was. */
const copy = async (settings: CopySettings) => {
  try {
    const list = await readAnimalList(settings.from);
    if (list !== undefined) {
      const imported = await importPets(list, settings);
      out(`imported ${imported.pets} animals from the list ${settings.from} to ${imported.to}; the next id is ${imported.nextId}`);
      return;
    }
    const report = await copyPets(settings);
    const keys = report.idempotencyKeys === 1 ? '1 Idempotency-Key' : `${report.idempotencyKeys} Idempotency-Keys`;
    out(`copied ${report.pets} animals, ${keys} and the next id ${report.nextId} from ${report.from} to ${report.to}`);
  } catch (error) {
    const advice = error instanceof TargetNotEmptyError ? ' Give --replace to replace it.' : '';
    err(`animal-store: ${folderGivenAsFile(error) ?? reasonOf(error)}${advice}`);
    process.exit(1);
  }
};

const main = async () => {
  let request: ReturnType<typeof parseCommandLine>;
  try {
    request = parseCommandLine(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    err(`animal-store: ${error.message}`);
    err(USAGE_LINES[error.command]);
    process.exit(2);
  }
  if (request.kind === 'print') process.stdout.write(request.text);
  else if (request.kind === 'copy') await copy(request.settings);
  else if (request.kind === 'init-worker') await writeWorker(request.settings);
  else await run(request.settings);
};

await main();
