import fc from 'fast-check';
import { jsonRoundTrip } from '../../src/core/json.js';

describe('jsonRoundTrip', () => {
  it('equals JSON.parse(JSON.stringify(v)) for JSON-like values (fixed seed)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(jsonRoundTrip(v)).toEqual(JSON.parse(JSON.stringify(v)));
      }),
      { seed: 42, numRuns: 300 },
    );
  });
  it('handles the values JSON treats specially', () => {
    const v = { a: undefined, b: [undefined, () => 1, NaN, Infinity], c: new Date(0), d: { toJSON: () => 'x' }, e: -0 };
    expect(jsonRoundTrip(v)).toEqual(JSON.parse(JSON.stringify(v)));
    expect(jsonRoundTrip(undefined)).toBeUndefined();
    expect(() => jsonRoundTrip({ n: 1n })).toThrow(TypeError);
  });
  it('returns fresh objects', () => {
    const v = { a: { b: [1] } };
    const c = jsonRoundTrip(v);
    expect(c).toEqual(v);
    expect(c.a).not.toBe(v.a);
    expect(c.a.b).not.toBe(v.a.b);
  });
});
