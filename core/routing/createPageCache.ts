/** @module The JSON text and ETag of list pages asked for again and again, kept while their animals are the same. */
import { LRUCache } from 'lru-cache';
import type { EntityTagger } from '../http/createEntityTagger.js';
import { type MaybePromise, whenReady } from '../MaybePromise.js';
import type { Pet } from '../schemas/Pet.js';
import type { PetTexts } from './createPetTexts.js';

/** A page's body and its entity tag. */
export interface PageAnswer {
  text: string;
  etag: string;
}

/**
 * Gives the body and tag of a page of animals with its Link, from the cache when its animals
 * are unchanged; at once, unless the hash answers later.
 */
export type PageCache = (pets: readonly Pet[], link: string | undefined) => MaybePromise<PageAnswer>;

/** How many first animals pages are kept under: at most 100 animals and 7 kB of text each. */
const PAGES_KEPT = 256;
/** How many pages one first animal keeps (`?limit=20` and `?limit=100` both start at the first animal). */
const PAGES_PER_FIRST = 4;

interface KeptPage extends PageAnswer {
  pets: readonly Pet[];
  link: string | undefined;
}

/** The key of a page without animals. */
const NO_FIRST = Object.freeze({}) as Pet;

/** Whether a kept page is this page: the same Link, and the very same animal objects in the same order. */
const isPage = (kept: KeptPage, pets: readonly Pet[], link: string | undefined) => {
  if (kept.link !== link || kept.pets.length !== pets.length) return false;
  for (let index = 0; index < pets.length; index++) if (kept.pets[index] !== pets[index]) return false;
  return true;
};

/**
 * Creates a page cache. Most list requests ask for the same few pages (the first page of
 * each filter above all) and get them unchanged, yet each answer serialised its animals and
 * hashed the text again: most of what a list costs. A page is kept under its first animal
 * (the object itself: a lookup that costs next to nothing, where a key written from the
 * page's ids and Link cost a request as much as the rest of the cache) and given again only
 * when the storage hands over the very same animal objects under the same Link, all frozen
 * plain objects (as the memory and JSON-file storages keep them): those cannot have
 * changed, and a storage that reloads an edited file hands over new ones. Any other page
 * is joined from its animals' texts (the service's `pageText`), tagged, and not kept.
 *
 * A page is kept only once it is asked for again within the last `PAGES_KEPT` pages
 * answered, as a page asked for again and again is: a walk through more pages than the
 * cache holds would otherwise keep every page and drop each before it is asked for again,
 * which cost such a walk more than the cache saved anyone. The pages seen
 * once are remembered by their first animal alone, in a table of fixed size.
 */
export const createPageCache = (tagOf: EntityTagger, { pageText }: PetTexts): PageCache => {
  const kept = new LRUCache<Pet, KeptPage[]>({ max: PAGES_KEPT });
  const seenFirst: (Pet | undefined)[] = new Array(PAGES_KEPT);
  const seenAt = new Float64Array(PAGES_KEPT);
  let answered = 0;
  /** Whether a page starting with `first` was seen lately; it is from now on. */
  const seenLately = (first: Pet) => {
    const slot = (first.id ?? 0) % PAGES_KEPT;
    const lately = seenFirst[slot] === first && answered - seenAt[slot]! <= PAGES_KEPT;
    seenFirst[slot] = first;
    seenAt[slot] = answered;
    return lately;
  };
  return (pets, link) => {
    answered++;
    const first = pets[0] ?? NO_FIRST;
    const pages = kept.get(first);
    if (pages !== undefined) for (const page of pages) if (isPage(page, pets, link)) return page;
    const { text, fixed } = pageText(pets);
    const keep = fixed && (seenLately(first) || pages !== undefined);
    return whenReady(tagOf(text, link), (etag) => {
      if (keep) {
        const page = { pets: [...pets], link, text, etag };
        if (pages === undefined) kept.set(first, [page]);
        else if (pages.unshift(page) > PAGES_PER_FIRST) pages.pop();
      }
      return { text, etag };
    });
  };
};

/** Gives the tag of a page's text made elsewhere (by the storage), from the cache when the same request got the same text. */
export type TextPageCache = (request: string, text: string, link: string | undefined) => Promise<PageAnswer>;

/**
 * Creates a cache for pages whose text the storage writes (PostgreSQL's `listText`): there
 * are no animal objects to compare, so a page is kept under its request and its Link, and
 * its tag given again when the storage hands over the very same text. The tag is a hash of
 * the text and the Link alone, so equal texts under one Link have equal tags; comparing
 * the texts costs far less than hashing them.
 */
export const createTextPageCache = (tagOf: EntityTagger): TextPageCache => {
  const kept = new LRUCache<string, PageAnswer>({ max: PAGES_KEPT });
  return async (request, text, link) => {
    const key = `${request}\n${link ?? ''}`;
    const found = kept.get(key);
    if (found !== undefined && found.text === text) return found;
    const tagged = tagOf(text, link);
    const answer = { text, etag: typeof tagged === 'string' ? tagged : await tagged };
    kept.set(key, answer);
    return answer;
  };
};
