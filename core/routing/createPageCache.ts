/** @module The JSON text and ETag of list pages asked for again and again, kept while their animals are the same. */
import { LRUCache } from 'lru-cache';
import type { EntityTagger } from '../http/entityTags.js';
import type { Pet } from '../schemas/Pet.js';
import { isFixedPet, pageText } from './petText.js';

/** A page's body and its entity tag. */
export interface PageAnswer {
  text: string;
  etag: string;
}

/** Gives the body and tag of a page of animals with its Link, from the cache when its animals are unchanged. */
export type PageCache = (pets: readonly Pet[], link: string | undefined) => Promise<PageAnswer>;

/** How many pages are kept: at most 100 animals and 7 kB of text each. */
const PAGES_KEPT = 256;

interface KeptPage extends PageAnswer {
  pets: readonly Pet[];
}

/** Whether two pages hold the very same animal objects, in the same order. */
const samePets = (kept: readonly Pet[], pets: readonly Pet[]) => {
  if (kept.length !== pets.length) return false;
  for (let index = 0; index < pets.length; index++) if (kept[index] !== pets[index]) return false;
  return true;
};

/**
 * Creates a page cache. Most list requests ask for the same few pages (the first page of
 * each filter above all) and get them unchanged, yet each answer serialised its animals and
 * hashed the text again: most of what a list costs. A page is kept under its first id, its
 * length and its Link, and given again only when the storage hands over the very same
 * animal objects, all frozen plain objects (as the memory and JSON-file storages keep them):
 * those cannot have changed, and a storage that reloads an edited file hands over new ones.
 * Any other page is joined from its animals' texts (`pageText`), tagged, and not kept.
 */
export const createPageCache = (tagOf: EntityTagger): PageCache => {
  const kept = new LRUCache<string, KeptPage>({ max: PAGES_KEPT });
  return async (pets, link) => {
    const key = `${pets[0]?.id ?? ''}:${pets.length}:${link ?? ''}`;
    const found = kept.get(key);
    if (found !== undefined && samePets(found.pets, pets)) return found;
    const text = pageText(pets);
    const tagged = tagOf(text, link);
    const etag = typeof tagged === 'string' ? tagged : await tagged;
    if (pets.every(isFixedPet)) {
      kept.set(key, { pets: [...pets], text, etag });
    }
    return { text, etag };
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
