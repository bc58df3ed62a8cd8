/**
 * @module The app under test: an adoption board for a shelter's website. It reads the
 * catalogue over HTTP with the typed client from `animal-store/client`, and stays usable
 * when the catalogue is slow or failing: it retries one failed read, gives up on a slow
 * one after a deadline, and then shows a message instead of an error page.
 */
import { createClient, isAnimalStoreClientError, type NewPetInput, type Pet } from 'animal-store/client';

/** Where the catalogue is, and how patient to be with it. */
export interface AdoptionBoardOptions {
  baseUrl: string;
  apiKey: string;
  /** The fetch to call the catalogue with; tests pass an in-process one. */
  fetch?: (request: Request) => Promise<Response>;
  /** Milliseconds to wait for the catalogue before showing the fallback; 2 s by default. */
  deadline?: number;
}

/** What the board shows: the animals, or a message saying why there are none to show. */
export type BoardView = { animals: string[] } | { message: string };

/** The message shown when the catalogue cannot answer in time, or at all. */
export const UNAVAILABLE = 'The list of animals is unavailable right now; please try again in a minute.';

/** Rejects after `milliseconds`, so a slow catalogue cannot hold the page forever. */
const within = <T>(milliseconds: number, work: Promise<T>): Promise<T> => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${milliseconds} ms`)), milliseconds);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
};

/** Creates the board over the catalogue at `baseUrl`. */
export const createAdoptionBoard = ({ deadline = 2_000, ...clientOptions }: AdoptionBoardOptions) => {
  const client = createClient(clientOptions);

  /** Every available animal, all pages of them, as "Name (#id)". */
  const readAvailable = async (): Promise<string[]> => {
    const animals: string[] = [];
    for await (const pet of client.allPets({ status: 'available' })) animals.push(`${pet.name} (#${pet.id})`);
    return animals;
  };

  return {
    /** The animals up for adoption, or the fallback message. One failed read is retried. */
    async view(): Promise<BoardView> {
      for (let attempt = 1; ; attempt++) {
        try {
          return { animals: await within(deadline, readAvailable()) };
        } catch (error) {
          const retryable = isAnimalStoreClientError(error) && error.status >= 500;
          if (!retryable || attempt === 2) return { message: UNAVAILABLE };
        }
      }
    },

    /** Records a newly arrived animal; resolves with a line for the staff, good or bad. */
    async registerArrival(arrival: NewPetInput): Promise<string> {
      try {
        const pet: Pet = await client.createPet(arrival);
        return `${pet.name} is #${pet.id} and ${pet.status}.`;
      } catch (error) {
        if (!isAnimalStoreClientError(error)) throw error;
        // The catalogue's messages are written for people: show them as they are.
        return `Not registered: ${error.message}`;
      }
    },
  };
};
