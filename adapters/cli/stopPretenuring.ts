/**
 * @module Turns off V8's allocation-site pretenuring for the rest of the standalone server's
 * life, once its storage is loaded.
 */
import { setFlagsFromString } from 'node:v8';

/**
 * V8 allocates the objects of an allocation site straight into the old generation once most
 * of them outlived a young collection. Under durable creates that decision is sometimes made
 * while the requests of every connection wait together for one fdatasync; from then on some
 * of each request's objects are born old, keep what they point to alive until the next full
 * collection, and every young collection copies megabytes where it copied kilobytes: a
 * loaded server's tail latency grows several times over, for the rest of its life (found
 * with `node --trace-gc-nvp`; `test/bench/proposals/README.md`). Whether it happens depends
 * on where a collection falls, so some runs of the same load have it and some do not;
 * without pretenuring none does.
 *
 * Only the standalone server does this: it owns its process. Called once the storage is
 * loaded, so the start-up's own long-lived objects are placed as V8 sees fit. A program
 * that embeds the server can start node with `--no-allocation-site-pretenuring` instead.
 */
export const stopPretenuring = (): void => {
  setFlagsFromString('--no-allocation-site-pretenuring');
};
