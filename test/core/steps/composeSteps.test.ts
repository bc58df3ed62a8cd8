/** @module The steps of a request: each runs once, in order, and a second `next()` is refused. */
import { describe, expect, it } from 'vitest';
import { composeSteps, type Step } from '../../../core/steps/composeSteps.js';
import type { RequestState } from '../../../core/steps/RequestState.js';

// The steps below read nothing of the state: any object stands for one request's.
const state = () => ({ headers: {} }) as unknown as RequestState;

describe('composeSteps', () => {
  it('runs each step once, in order, and hands back the last answer', async () => {
    const ran: string[] = [];
    const run = composeSteps([
      (_, next) => {
        ran.push('first');
        return next();
      },
      async (_, next) => {
        ran.push('second');
        const answer = await next();
        return new Response(`${await answer.text()}!`, { status: answer.status });
      },
      () => {
        ran.push('last');
        return new Response('answered', { status: 201 });
      },
    ]);
    const answer = await run(state());
    expect(ran).toEqual(['first', 'second', 'last']);
    expect(answer.status).toBe(201);
    expect(await answer.text()).toBe('answered!');
  });

  it('refuses a second next() from one step with an Error, the later steps run once', () => {
    let answered = 0;
    const last: Step = () => {
      answered += 1;
      return new Response('once');
    };
    const run = composeSteps([
      (_, next) => {
        next();
        return next();
      },
      last,
    ]);
    expect(() => run(state())).toThrow(/called next\(\) a second time/);
    expect(answered).toBe(1);
  });

  it('refuses a second next() that comes after the first answer was awaited', async () => {
    let answered = 0;
    const run = composeSteps([
      async (_, next) => {
        await next();
        return next();
      },
      () => {
        answered += 1;
        return new Response('once');
      },
    ]);
    await expect(run(state())).rejects.toThrow(/called next\(\) a second time/);
    expect(answered).toBe(1);
  });

  it('refuses a step deeper in the list calling next() twice, and counts each request apart', () => {
    const run = composeSteps([
      (_, next) => next(),
      (_, next) => {
        next();
        return next();
      },
      () => new Response('once'),
    ]);
    expect(() => run(state())).toThrow(/Step 1 of the request called next\(\) a second time/);
    // A new request starts afresh: the guard is per request, not per composed list.
    const once = composeSteps([(_, next) => next(), () => new Response('fine')]);
    expect(once(state())).toBeInstanceOf(Response);
    expect(once(state())).toBeInstanceOf(Response);
  });

  it('refuses a last step that hands on instead of answering', () => {
    const run = composeSteps([(_, next) => next()]);
    expect(() => run(state())).toThrow(/handed on instead of answering/);
  });
});
