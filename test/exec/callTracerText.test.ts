/**
 * The callTracer's JSON is written as text (core/exec/trace/callTracer.ts); it must parse to what geth's field order
 * and omissions give, for every kind of frame: nested calls, a creation, a failed frame with a quoted error and a
 * revert reason, logs, and a STATICCALL without a value.
 */
import { describe, expect, it } from 'vitest';
import { callFrameText, type CallFrame } from '../../core/exec/trace/callTracer.ts';

const bytes = (...b: number[]): Uint8Array => Uint8Array.from(b);
const addr = (n: number): Uint8Array => new Uint8Array(20).fill(n);

function frame(over: Partial<CallFrame>): CallFrame {
  return {
    type: 'CALL',
    from: addr(1),
    to: addr(2),
    input: bytes(),
    gas: 100n,
    gasUsed: 21n,
    value: 0n,
    calls: [],
    logs: [],
    logsAtEntry: 0,
    ...over,
  };
}

describe('callTracer JSON text', () => {
  it('gives geth keys in geth order and leaves out the absent ones', () => {
    const root = frame({
      input: bytes(0xa9, 0x05, 0x9c, 0xbb),
      output: bytes(1),
      value: 5n,
      calls: [
        frame({ type: 'STATICCALL', value: undefined, input: bytes(0x12), output: bytes() }),
        frame({ type: 'CREATE2', to: undefined, error: 'contract "x" \\ failed\n', gasUsed: 100n }),
        frame({ type: 'DELEGATECALL', error: 'execution reverted', revertReason: 'Nope "quoted"', output: bytes(8, 0xc3, 0x79, 0xa0) }),
      ],
      logs: [
        { address: addr(2), topics: [new Uint8Array(32).fill(7), new Uint8Array(32)], data: bytes(1, 2), position: 1, index: 0 },
        { address: addr(3), topics: [], data: bytes(), position: 3, index: 4 },
      ],
    });
    const text = callFrameText(root);
    const parsed = JSON.parse(text) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(['from', 'gas', 'gasUsed', 'to', 'input', 'output', 'calls', 'logs', 'value', 'type']);
    expect(parsed).toMatchObject({
      from: '0x' + '01'.repeat(20),
      gas: '0x64',
      gasUsed: '0x15',
      input: '0xa9059cbb',
      output: '0x01',
      value: '0x5',
      type: 'CALL',
    });
    const [stat, create, del] = parsed.calls as Record<string, unknown>[];
    expect(Object.keys(stat)).toEqual(['from', 'gas', 'gasUsed', 'to', 'input', 'type']);
    expect(Object.keys(create)).toEqual(['from', 'gas', 'gasUsed', 'input', 'error', 'value', 'type']);
    expect(create.error).toBe('contract "x" \\ failed\n');
    expect(Object.keys(del)).toEqual(['from', 'gas', 'gasUsed', 'to', 'input', 'output', 'error', 'revertReason', 'value', 'type']);
    expect(del.revertReason).toBe('Nope "quoted"');
    expect(parsed.logs).toEqual([
      {
        address: '0x' + '02'.repeat(20),
        topics: ['0x' + '07'.repeat(32), '0x' + '00'.repeat(32)],
        data: '0x0102',
        position: '0x1',
        index: '0x0',
      },
      { address: '0x' + '03'.repeat(20), topics: [], data: '0x', position: '0x3', index: '0x4' },
    ]);
    // No whitespace: the text is what JSON.stringify would have written for the same value.
    expect(text).toBe(JSON.stringify(parsed));
  });
});
