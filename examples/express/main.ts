/**
 * @module Express example: an existing Express 5 app, with its own routes and its own
 * `express.json()` body parser, mounts the catalogue beside them at `/catalogue`, so the
 * interface answers at `/catalogue/v1/pets`. The app's order route also calls the same
 * catalogue in process (no HTTP hop) to check that the ordered animal exists, and passes
 * the catalogue's own error codes on to its callers.
 *
 * Run (from this repository; see examples/README.md):
 * `node --conditions=animal-store-source --import tsx examples/express/main.ts`.
 * PORT (3000 by default) and CATALOGUE_API_KEY configure it.
 */

import { createMemoryStorage, createPetService, isAnimalStoreError } from 'animal-store';
import { expressMiddleware } from 'animal-store/express';
import express from 'express';

/** The service: built once, mounted over HTTP below, its catalogue called directly by /api/orders. */
const service = createPetService({
  storage: createMemoryStorage(),
  keys: [process.env.CATALOGUE_API_KEY ?? 'express-example-key'],
});

interface Order {
  id: number;
  petId: number;
  customer: string;
}
const orders: Order[] = [];

const app = express();
// The app's own parser, for its own routes; the catalogue reads its bodies itself.
app.use(express.json());

app.get('/health', (_request, response) => {
  response.json({ status: 'ok' });
});

app.get('/api/orders', (_request, response) => {
  response.json(orders);
});

app.post('/api/orders', async (request, response) => {
  const { petId, customer } = request.body ?? {};
  try {
    const pet = await service.catalogue.getPet(petId);
    const order: Order = { id: orders.length + 1, petId: pet.id, customer: String(customer ?? 'anonymous') };
    orders.push(order);
    response.status(201).json({ ...order, petName: pet.name });
  } catch (error) {
    // The catalogue's errors carry an HTTP status and an Error body: pass them straight on.
    if (!isAnimalStoreError(error)) throw error;
    response.status(error.status).json(error.toJSON());
  }
});

app.use('/catalogue', expressMiddleware(service));

const port = Number(process.env.PORT ?? 3000);
const server = app.listen(port, '127.0.0.1', (error) => {
  if (error) throw error;
  const address = server.address();
  const bound = typeof address === 'object' && address !== null ? address.port : port;
  console.log(`listening on http://127.0.0.1:${bound} (catalogue at /catalogue/v1/pets)`);
});

/** Stops taking requests and lets the process end, on Ctrl-C or a process manager's SIGTERM. */
const stop = () => {
  server.close();
  server.closeIdleConnections();
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
