/**
 * @module The app under test: an adoption board for a shelter's website. It reads the
 * catalogue over HTTP with the typed client from `animal-store/client`, and stays usable
 * when the catalogue is slow or failing: the client retries a failed read, the board gives
 * up on a slow one after a deadline, and then shows a message instead of an error page.
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

/** Creates the board over the catalogue at `baseUrl`. */
export const createAdoptionBoard = ({ deadline = 2_000, ...clientOptions }: AdoptionBoardOptions) => {
  // The client tries a failed read again by itself (a 503, no answer); the deadline bounds it all.
  const client = createClient(clientOptions);

  return {
    /** The animals up for adoption, or the fallback message when the catalogue cannot answer within the deadline. */
    async view(): Promise<BoardView> {
      const animals: string[] = [];
      try {
        for await (const pet of client.allPets({ status: 'available' }, { signal: AbortSignal.timeout(deadline) })) {
          animals.push(`${pet.name} (#${pet.id})`);
        }
        return { animals };
      } catch (error) {
        if (!isAnimalStoreClientError(error)) throw error;
        return { message: UNAVAILABLE };
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
