/**
 * One rule for an override of a precompile's address (core/exec/call/stateOverrides.ts `precompileMoves`): eth_call
 * and friends (geth's StateOverride.Apply texts) and eth_simulateV1 (the spec's codes) differ only in the refusals
 * they name.
 */
import { describe, expect, it } from 'vitest';
import { CALL_MOVE_ERRORS, precompileMoves, type StateOverrideSet } from '../../core/exec/call/stateOverrides.ts';
import { REMOVED_PRECOMPILE } from '../../core/exec/evmHost.ts';

const ACTIVE = new Set(['0000000000000000000000000000000000000001', '0000000000000000000000000000000000000002']);
const ECRECOVER = '0x0000000000000000000000000000000000000001';
const SHA256 = '0x0000000000000000000000000000000000000002';
const ELSEWHERE = '0x00000000000000000000000000000000000000aa';
const PLAIN = '0xc100000000000000000000000000000000000000';
const plain = (a: string) => a.slice(2);

/** eth_simulateV1's refusals, as kinds a test can read. */
const SIM = {
  notPrecompile: (a: string) => new Error(`notPrecompile ${a}`),
  toItself: (a: string) => new Error(`toItself ${a}`),
  targetOverridden: (a: string) => new Error(`targetOverridden ${a}`),
};

describe('precompileMoves', () => {
  it('default: no overrides leave the table as it is', () => {
    expect(precompileMoves(undefined, ACTIVE, CALL_MOVE_ERRORS).size).toBe(0);
    expect(precompileMoves(new Map([[PLAIN, { balance: 1n }]]), ACTIVE, SIM).size).toBe(0);
  });

  it("behavior: an override of a precompile's address removes it; a move runs it elsewhere, for both methods", () => {
    const set: StateOverrideSet = new Map([
      [ECRECOVER, { movePrecompileTo: ELSEWHERE }],
      [SHA256, { code: new Uint8Array([0]) }],
    ]);
    const want = new Map([
      [plain(ECRECOVER), plain(ELSEWHERE)],
      [plain(SHA256), REMOVED_PRECOMPILE],
    ]);
    expect(precompileMoves(set, ACTIVE, CALL_MOVE_ERRORS)).toEqual(want);
    expect(precompileMoves(set, ACTIVE, SIM)).toEqual(want);
  });

  it('error: a move of an address without a precompile, before any other check', () => {
    const set: StateOverrideSet = new Map([
      [ECRECOVER, { movePrecompileTo: ECRECOVER }],
      [PLAIN, { movePrecompileTo: ELSEWHERE }],
    ]);
    expect(() => precompileMoves(set, ACTIVE, CALL_MOVE_ERRORS)).toThrow(
      'account 0xc100000000000000000000000000000000000000 is not a precompile',
    );
    expect(() => precompileMoves(set, ACTIVE, SIM)).toThrow(`notPrecompile ${PLAIN}`);
  });

  it('error: each method refuses the moves its rules name', () => {
    const self: StateOverrideSet = new Map([[ECRECOVER, { movePrecompileTo: ECRECOVER }]]);
    expect(() => precompileMoves(self, ACTIVE, CALL_MOVE_ERRORS)).toThrow(
      'account 0x0000000000000000000000000000000000000001 is already overridden',
    );
    expect(() => precompileMoves(self, ACTIVE, SIM)).toThrow(`toItself ${ECRECOVER}`);
    const shared: StateOverrideSet = new Map([
      [ECRECOVER, { movePrecompileTo: ELSEWHERE }],
      [SHA256, { movePrecompileTo: ELSEWHERE }],
    ]);
    // Two moves onto one address are no refusal (geth): both leave their addresses, the later one runs there.
    expect([...precompileMoves(shared, ACTIVE, SIM)]).toEqual([
      [plain(ECRECOVER), plain(ELSEWHERE)],
      [plain(SHA256), plain(ELSEWHERE)],
    ]);
    const onto: StateOverrideSet = new Map([
      [ECRECOVER, { movePrecompileTo: PLAIN }],
      [PLAIN, { balance: 1n }],
    ]);
    expect(() => precompileMoves(onto, ACTIVE, CALL_MOVE_ERRORS)).toThrow(
      'account 0xc100000000000000000000000000000000000000 is already overridden',
    );
    expect(() => precompileMoves(onto, ACTIVE, SIM)).toThrow(`targetOverridden ${PLAIN}`);
  });
});
