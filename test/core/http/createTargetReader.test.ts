import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createTargetReader } from '../../../core/http/createTargetReader.js';

/** Characters that matter to the URL parser: escaped, decoded, dot segments, query and fragment marks. */
const TRICKY = [...'aZ09-._~/?#%2e%2E%20 "<>\'`{}|\\^[]!$&()*+,;=:@\u00e9\u0000\t'];
const targetPart = fc
  .array(fc.constantFrom(...TRICKY, '..', '/.', '/..', '%2e%2e', 'pets', 'v1'), { maxLength: 16 })
  .map((parts) => parts.join(''));

describe('reading request targets', () => {
  it('gives the path and search the URL parser gives, for any target after an origin seen before', () => {
    fc.assert(
      fc.property(targetPart, (rest) => {
        const read = createTargetReader();
        const origin = 'http://127.0.0.1:8080';
        read(`${origin}/v1/pets`); // the origin is checked once
        const url = `${origin}/${rest}`;
        const parsed = new URL(url);
        expect(read(url)).toEqual({ path: parsed.pathname, search: parsed.search });
      }),
      { numRuns: 2000 },
    );
  });

  it('reads plain targets as written, the dot segments and escapes through the parser', () => {
    const read = createTargetReader();
    const origin = 'http://localhost';
    expect(read(`${origin}/v1/pets?limit=20&cursor=MTo0MDo.x_Y-z`)).toEqual({ path: '/v1/pets', search: '?limit=20&cursor=MTo0MDo.x_Y-z' });
    expect(read(`${origin}/v1/pets?`)).toEqual({ path: '/v1/pets', search: '' });
    expect(read(`${origin}/v1/x/../pets`)).toEqual({ path: '/v1/pets', search: '' });
    expect(read(`${origin}/v1/%2e%2e/pets`)).toEqual({ path: '/pets', search: '' });
    expect(read(`${origin}/v1/pets?name=a b#frag`)).toEqual({ path: '/v1/pets', search: '?name=a%20b' });
  });

  it('refuses a URL whose host is not a host, however often its path was read before', () => {
    const read = createTargetReader();
    read('http://localhost/v1/pets');
    expect(() => read('http://exa mple.com/v1/pets')).toThrow(expect.objectContaining({ code: 'validation_failed' }));
    expect(() => read('http://exa mple.com/v1/pets')).toThrow(expect.objectContaining({ code: 'validation_failed' }));
  });
});
