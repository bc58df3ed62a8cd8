/** @module What only the Express mount must show: the host app is left alone, and its parsers do not break the service. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express } from 'express';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { expressMiddleware } from '../../adapters/express.js';
import { createPetService } from '../../core/index.js';
import { createMemoryStorage } from '../../storage/createMemoryStorage.js';
import { expectErrorAnswer } from './node/errorAnswers.js';
import { exchange } from './node/rawHttp.js';

const KEY = 'express-test-key-0001';
const json = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
let close: (() => Promise<void>) | undefined;

afterEach(async () => {
  await close?.();
  close = undefined;
});

/** Serves an app on a free port and answers its origin. */
const start = async (app: Express): Promise<string> => {
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

const options = () => ({ storage: createMemoryStorage(), keys: [KEY], logger: { warn: () => {} } });

describe('animal-store/express', () => {
  it('leaves the rest of the app alone: its routes, its JSON parser and its 404', async () => {
    const app = express();
    app.use(express.json());
    app.post('/echo', (req, res) => void res.json({ received: req.body as unknown }));
    app.use('/catalogue', expressMiddleware(options()));
    app.use((_req, res) => void res.status(404).type('text/plain').send('app 404'));
    const origin = await start(app);

    const echo = await fetch(`${origin}/echo`, { method: 'POST', headers: json, body: '{"a":1}' });
    expect(await echo.json()).toEqual({ received: { a: 1 } });
    const elsewhere = await fetch(`${origin}/v1/pets`, { headers: json });
    expect(elsewhere.status).toBe(404);
    expect(await elsewhere.text()).toBe('app 404');
    const created = await fetch(`${origin}/catalogue/v1/pets`, { method: 'POST', headers: json, body: '{"name":"Rex","categoryId":1}' });
    expect(created.status).toBe(201);
  });

  it('needs no body parser at all', async () => {
    const app = express();
    app.use('/catalogue', expressMiddleware(options()));
    const origin = await start(app);
    const created = await fetch(`${origin}/catalogue/v1/pets`, { method: 'POST', headers: json, body: '{"name":"Rex","categoryId":1}' });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe('/catalogue/v1/pets/1');
  });

  it('checks the key before reporting malformed JSON, even when express.json() refused the body first', async () => {
    const app = express();
    app.use(express.json());
    app.use('/catalogue', expressMiddleware(options()));
    const origin = await start(app);
    const response = await fetch(`${origin}/catalogue/v1/pets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{oops',
    });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { code: string }).code).toBe('unauthorized');
  });

  it('reads the exact bytes a global express.raw() or express.text() kept', async () => {
    const app = express();
    app.use(express.raw({ type: 'application/json' }));
    app.use('/catalogue', expressMiddleware(options()));
    const origin = await start(app);
    // Duplicate keys survive as bytes, so the service can refuse them as it does without a parser.
    const duplicate = await fetch(`${origin}/catalogue/v1/pets`, {
      method: 'POST',
      headers: json,
      body: '{"name":"A","name":"B","categoryId":1}',
    });
    expect(duplicate.status).toBe(400);
    expect(((await duplicate.json()) as { code: string }).code).toBe('invalid_json');
  });

  it('reads a JSON value an earlier express.json() parsed, as the same animal', async () => {
    const app = express();
    app.use(express.json());
    app.use('/catalogue', expressMiddleware(options()));
    const origin = await start(app);
    const created = await fetch(`${origin}/catalogue/v1/pets`, {
      method: 'POST',
      headers: json,
      body: '{"name":"Rex","categoryId":3,"status":"pending"}',
    });
    expect(await created.json()).toEqual({ id: 1, name: 'Rex', categoryId: 3, status: 'pending' });
    const unknownField = await fetch(`${origin}/catalogue/v1/pets`, {
      method: 'POST',
      headers: json,
      body: '{"name":"Rex","categoryId":3,"__proto__":{}}',
    });
    expect(unknownField.status).toBe(400);
    expect(((await unknownField.json()) as { details: Array<{ path: string }> }).details[0]?.path).toBe('__proto__');
  });

  it("answers bodies over express.json()'s own limit with its Error body, not the app's error page", async () => {
    const app = express();
    app.use(express.json());
    app.use('/catalogue', expressMiddleware(options()));
    const origin = await start(app);
    const body = JSON.stringify({ name: 'x'.repeat(200 * 1024), categoryId: 1 });
    const response = await fetch(`${origin}/catalogue/v1/pets`, { method: 'POST', headers: json, body });
    expect(response.status).toBe(413);
    expect(((await response.json()) as { code: string }).code).toBe('payload_too_large');
  });

  it("leaves the app's parser errors outside the mount to the app", async () => {
    const app = express();
    app.use(express.json());
    app.post('/echo', (req, res) => void res.json(req.body as unknown));
    app.use('/catalogue', expressMiddleware(options()));
    app.use((error: { status?: number }, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      res
        .status(error.status ?? 500)
        .type('text/plain')
        .send('app error handler');
    });
    const origin = await start(app);
    const response = await fetch(`${origin}/echo`, { method: 'POST', headers: json, body: '{oops' });
    expect(response.status).toBe(400);
    expect(await response.text()).toBe('app error handler');
  });

  it('mounts a service built elsewhere, sharing its animals with in-process calls', async () => {
    const service = createPetService(options());
    await service.catalogue.createPet({ name: 'Rex', categoryId: 1 });
    const app = express();
    const shop = express.Router();
    shop.use('/pets-api', expressMiddleware(service));
    app.use('/shop', shop);
    const origin = await start(app);
    const response = await fetch(`${origin}/shop/pets-api/v1/pets?limit=1`, { headers: json });
    expect(await response.json()).toEqual([{ id: 1, name: 'Rex', categoryId: 1, status: 'available' }]);
    const one = await fetch(`${origin}/shop/pets-api/v1/pets/1`, { headers: json });
    expect(one.headers.get('link')).toBe(
      '</shop/pets-api/v1/pets>; rel="successor-version", </shop/pets-api/v1/docs#deprecation>; rel="deprecation"; type="text/html"',
    );
  });
});

describe('animal-store/express against requests no HTTP client would send', () => {
  const rawTo = async (app: Express, bytes: string) => {
    const origin = await start(app);
    return (await exchange(Number(new URL(origin).port), bytes, { answers: 1 })).answers[0];
  };

  it('answers a malformed Host with a 400 Error naming Host, and never routes by it', async () => {
    const app = express();
    app.use('/catalogue', expressMiddleware(options()));
    const answer = await rawTo(app, `GET /catalogue/healthz HTTP/1.1\r\nHost: x/v1/pets/1#\r\n\r\n`);
    expect(expectErrorAnswer(answer, 400, 'validation_failed').details).toEqual([{ path: 'Host', message: expect.any(String) }]);
  });

  it('answers two Authorization headers with a 400 Error naming Authorization, not the first one winning', async () => {
    const app = express();
    app.use('/catalogue', expressMiddleware(options()));
    const answer = await rawTo(
      app,
      `GET /catalogue/v1/pets HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer ${KEY}\r\nAuthorization: Bearer other\r\n\r\n`,
    );
    expect(expectErrorAnswer(answer, 400, 'validation_failed').details?.[0]?.path).toBe('Authorization');
  });

  it('leases to a POST whose head frames no body (curl -X POST), with or without express.json() before it', async () => {
    for (const parser of [false, true]) {
      const app = express();
      if (parser) app.use(express.json());
      app.use('/catalogue', expressMiddleware(options()));
      const answer = await rawTo(app, `POST /catalogue/v1/sync/leases HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer ${KEY}\r\n\r\n`);
      expect([answer?.status, JSON.parse(answer?.body ?? 'null')]).toEqual([201, { first: 1, last: 1000 }]);
      await close?.();
      close = undefined;
    }
  });

  it('serves an absolute-form target by its path and query', async () => {
    const app = express();
    app.use('/catalogue', expressMiddleware(options()));
    const answer = await rawTo(
      app,
      `GET http://example.com/catalogue/v1/pets?limit=1 HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer ${KEY}\r\n\r\n`,
    );
    expect(answer?.status).toBe(200);
    expect(answer?.body).toBe('[]');
  });

  it('answers a failure of its own with a bare 500 Error, never the stack Express shows outside production', async () => {
    const reported = vi.spyOn(console, 'error').mockImplementation(() => {});
    const fail = async () => {
      throw new Error('boom at /work/secret.ts:1');
    };
    const { catalogue, keys, stop, kiosks } = createPetService(options());
    const failing = Object.assign(fail, { handle: fail, catalogue, keys, stop, kiosks, deprecatedUses: () => [] });
    const app = express();
    app.use('/catalogue', expressMiddleware(failing));
    const answer = await rawTo(app, 'GET /catalogue/v1/pets HTTP/1.1\r\nHost: a\r\n\r\n');
    expect(expectErrorAnswer(answer, 500, 'internal_error').message).not.toMatch(/boom/);
    expect(reported).toHaveBeenCalledWith(
      'GET /catalogue/v1/pets failed',
      expect.objectContaining({ message: expect.stringMatching(/boom/) }),
    );
    reported.mockRestore();
  });

  it('serves a body whose charset express.json() refuses, as if no parser had run', async () => {
    const app = express();
    app.use(express.json());
    app.use('/catalogue', expressMiddleware(options()));
    const origin = await start(app);
    const response = await fetch(`${origin}/catalogue/v1/pets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json; charset=latin1' },
      body: '{"name":"Rex","categoryId":1}',
    });
    expect(response.status).toBe(201);
  });
});
