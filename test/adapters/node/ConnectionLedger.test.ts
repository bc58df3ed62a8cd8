/** @module The connection caps' decisions, in process: which connection makes room, and when a new one is refused. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConnectionLedger, type ConnectionPhase, firstToShed } from '../../../adapters/node/ConnectionLedger.js';

/** A ledger over numbered connections whose phases the test sets. */
const ledgerOf = (limits: { maxConnections?: number; maxConnectionsPerAddress?: number; shedAfter?: number } = {}) => {
  const phases = new Map<number, ConnectionPhase>();
  const ledger = new ConnectionLedger<number>(
    { maxConnections: 100, maxConnectionsPerAddress: 100, shedAfter: 1_000, ...limits },
    (id) => phases.get(id) ?? 'unfinished',
  );
  return { ledger, phases };
};

describe('the connection ledger', () => {
  it('Should admit within the caps without closing anything', () => {
    const { ledger } = ledgerOf({ maxConnections: 3, maxConnectionsPerAddress: 2 });
    expect(ledger.admit(1, 'a', false, 0)).toEqual({ admitted: true, shed: [] });
    expect(ledger.admit(2, 'a', false, 0)).toEqual({ admitted: true, shed: [] });
    expect(ledger.admit(3, 'b', false, 0)).toEqual({ admitted: true, shed: [] });
    expect(ledger.size).toBe(3);
    expect(ledger.countFrom('a')).toBe(2);
  });

  it('Should close the oldest idle keep-alive to make room under the total cap, before any newcomer is refused', () => {
    const { ledger, phases } = ledgerOf({ maxConnections: 3 });
    for (const id of [1, 2, 3]) ledger.admit(id, `10.0.0.${id}`, false, 0);
    phases.set(1, 'busy').set(2, 'idle').set(3, 'idle');
    ledger.rested(3, 100);
    ledger.rested(2, 200);
    // 3 has been idle longest.
    expect(ledger.admit(4, '10.0.0.4', false, 5_000)).toEqual({ admitted: true, shed: [3] });
    expect(ledger.size).toBe(3);
  });

  it('Should close the connection that has gone longest without a complete request, idle or unfinished alike', () => {
    const { ledger, phases } = ledgerOf({ maxConnections: 3 });
    ledger.admit(1, 'slow', false, 0); // a slow client: unfinished since 0
    ledger.admit(2, 'kiosk', false, 0);
    ledger.admit(3, 'kiosk', false, 0);
    phases.set(2, 'idle').set(3, 'idle');
    ledger.rested(2, 4_000); // a kiosk between two requests
    ledger.rested(3, 4_500);
    expect(ledger.admit(4, 'new', false, 5_000)).toEqual({ admitted: true, shed: [1] });
    expect(ledger.admit(5, 'new', false, 5_100)).toEqual({ admitted: true, shed: [2] });
  });

  it('Should never close a connection being answered, nor one younger than shedAfter: then the newcomer is refused', () => {
    const { ledger, phases } = ledgerOf({ maxConnections: 2, shedAfter: 1_000 });
    ledger.admit(1, 'a', false, 0);
    ledger.admit(2, 'b', false, 0);
    phases.set(1, 'busy');
    // 2 has owed its request for only 500 ms: it is probably sending it.
    expect(ledger.admit(3, 'c', false, 500)).toEqual({ admitted: false, shed: [] });
    expect(ledger.size).toBe(2);
    phases.set(2, 'busy');
    expect(ledger.admit(4, 'c', false, 60_000)).toEqual({ admitted: false, shed: [] });
    phases.set(2, 'unfinished');
    expect(ledger.admit(5, 'c', false, 60_000)).toEqual({ admitted: true, shed: [2] });
  });

  it("Should make room under an address's cap from that address's own connections only", () => {
    const { ledger, phases } = ledgerOf({ maxConnectionsPerAddress: 2 });
    ledger.admit(1, 'other', false, 0); // older, idle, but another client's
    phases.set(1, 'idle');
    ledger.admit(2, 'flood', false, 10);
    ledger.admit(3, 'flood', false, 20);
    expect(ledger.admit(4, 'flood', false, 5_000)).toEqual({ admitted: true, shed: [2] });
    expect(ledger.countFrom('flood')).toBe(2);
    phases.set(3, 'busy').set(4, 'busy');
    expect(ledger.admit(5, 'flood', false, 9_000)).toEqual({ admitted: false, shed: [] });
    expect(ledger.countFrom('other')).toBe(1);
  });

  it('Should not cap an exempt address but for the total cap', () => {
    const { ledger } = ledgerOf({ maxConnections: 4, maxConnectionsPerAddress: 1 });
    for (const id of [1, 2, 3, 4]) expect(ledger.admit(id, '127.0.0.1', true, 0).admitted).toBe(true);
    expect(ledger.admit(5, '127.0.0.1', true, 10)).toEqual({ admitted: false, shed: [] });
  });

  it('Should close two connections when the address cap and the total cap both need room, never the same one twice', () => {
    const { ledger, phases } = ledgerOf({ maxConnections: 3, maxConnectionsPerAddress: 2 });
    ledger.admit(1, 'a', false, 0);
    ledger.admit(2, 'b', false, 10);
    ledger.admit(3, 'a', false, 20);
    phases.set(1, 'idle').set(2, 'idle').set(3, 'idle');
    // 'a' is at its cap (its oldest is 1) and the total is at its cap: 1 frees both.
    expect(ledger.admit(4, 'a', false, 5_000)).toEqual({ admitted: true, shed: [1] });
    ledger.admit(5, 'c', false, 5_000); // the total is full again: 2 goes
    expect(ledger.size).toBe(3);
    expect(ledger.countFrom('b')).toBe(0);
  });

  it('Should forget closed connections, and a place freed is a place again', () => {
    const { ledger } = ledgerOf({ maxConnections: 1 });
    ledger.admit(1, 'a', false, 0);
    expect(ledger.admit(2, 'a', false, 10).admitted).toBe(false);
    ledger.closed(1);
    ledger.closed(1);
    expect(ledger.admit(3, 'a', false, 20).admitted).toBe(true);
    expect(ledger.countFrom('a')).toBe(1);
  });

  it('Should keep every cap and always close the eligible connection that waited longest (property)', () => {
    type Step = { kind: 'open'; address: number } | { kind: 'rest' | 'close' | 'busy'; which: number } | { kind: 'tick'; ms: number };
    const step = fc.oneof(
      fc.record({ kind: fc.constant('open' as const), address: fc.integer({ min: 0, max: 3 }) }),
      fc.record({ kind: fc.constantFrom('rest' as const, 'close' as const, 'busy' as const), which: fc.nat() }),
      fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 1_500 }) }),
    );
    fc.assert(
      fc.property(fc.array(step, { minLength: 50, maxLength: 200 }), (steps: Step[]) => {
        const limits = { maxConnections: 6, maxConnectionsPerAddress: 3, shedAfter: 1_000 };
        const phases = new Map<number, ConnectionPhase>();
        const ledger = new ConnectionLedger<number>(limits, (id) => phases.get(id) ?? 'unfinished');
        const open = new Map<number, { address: string; since: number }>();
        let now = 0;
        let next = 1;
        for (const s of steps) {
          if (s.kind === 'tick') now += s.ms;
          else if (s.kind === 'open') {
            const address = `10.0.0.${s.address}`;
            const id = next++;
            const eligible = [...open].filter(([other]) => phases.get(other) !== 'busy' && now - open.get(other)!.since >= 1_000);
            const oldest = (pool: typeof eligible) => Math.min(...pool.map(([, entry]) => entry.since));
            const addressFull = s.address !== 0 && [...open.values()].filter((entry) => entry.address === address).length >= 3;
            const admission = ledger.admit(id, address, s.address === 0, now);
            // Refused exactly when a cap needs room and nothing may be closed to make it.
            const fromAddress = eligible.filter(([, entry]) => entry.address === address);
            const roomUnderAddress = !addressFull || fromAddress.length > 0;
            const totalFull = open.size - (addressFull ? 1 : 0) >= limits.maxConnections;
            const roomInTotal = !totalFull || eligible.length - (addressFull ? 1 : 0) > 0;
            expect(admission.admitted).toBe(roomUnderAddress && roomInTotal);
            admission.shed.forEach((victim, position) => {
              // Each victim may be closed, and none that may be waited longer in its pool:
              // the address's own connections for the address's cap, everyone's for the total.
              const fromAddress = position === 0 && addressFull;
              const pool = eligible.filter(([other, entry]) =>
                fromAddress ? entry.address === address : other !== admission.shed[0] || position === 0,
              );
              expect(pool.map(([other]) => other)).toContain(victim);
              expect(open.get(victim)!.since).toBe(oldest(pool));
            });
            for (const victim of admission.shed) {
              open.delete(victim);
              phases.delete(victim);
            }
            if (admission.admitted) open.set(id, { address, since: now });
          } else {
            const ids = [...open.keys()];
            if (ids.length === 0) continue;
            const id = ids[s.which % ids.length]!;
            if (s.kind === 'close') {
              ledger.closed(id);
              open.delete(id);
            } else if (s.kind === 'busy') phases.set(id, 'busy');
            else {
              phases.set(id, 'idle');
              ledger.rested(id, now);
              open.get(id)!.since = now;
            }
          }
          expect(ledger.size).toBe(open.size);
          expect(open.size).toBeLessThanOrEqual(limits.maxConnections);
          for (const address of [1, 2, 3])
            expect(ledger.countFrom(`10.0.0.${address}`)).toBeLessThanOrEqual(limits.maxConnectionsPerAddress);
        }
      }),
    );
  });

  it('Should stop looking at the first connection younger than shedAfter, the queue being oldest first', () => {
    const seen: number[] = [];
    const queue = [
      { id: 1, since: 0 },
      { id: 2, since: 100 },
      { id: 3, since: 900 },
    ];
    const busy = (id: number): ConnectionPhase => {
      seen.push(id);
      return 'busy';
    };
    expect(firstToShed(queue, busy, 1_000, 500)).toBeUndefined();
    expect(seen).toEqual([1, 2]);
  });
});
