/** @module The V8 heap of a server started with `--metrics`, read from its Prometheus scrape. */
import type { HeapFigures } from './soakVerdict.js';

const MiB = 1024 * 1024;

/** One gauge's value in a Prometheus text exposition, or NaN when it is not there. */
const gauge = (exposition: string, name: string) => {
  const escaped = name.replace(/[{}"]/g, (character) => `\\${character}`);
  return Number(new RegExp(`^${escaped} (\\S+)$`, 'm').exec(exposition)?.[1] ?? Number.NaN);
};

/** The heap figures of the server at `origin`, or undefined when its `/metrics` does not answer. */
export const readHeap = async (origin: string, key: string): Promise<HeapFigures | undefined> => {
  try {
    const response = await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${key}` } });
    const exposition = await response.text();
    if (!response.ok) return undefined;
    return {
      usedMiB: gauge(exposition, 'nodejs_heap_size_used_bytes') / MiB,
      totalMiB: gauge(exposition, 'nodejs_heap_size_total_bytes') / MiB,
      newSpaceMiB: gauge(exposition, 'nodejs_heap_space_size_total_bytes{space="new"}') / MiB,
      externalMiB: gauge(exposition, 'nodejs_external_memory_bytes') / MiB,
    };
  } catch {
    return undefined;
  }
};
