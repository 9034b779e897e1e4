/** hive rpc-compat's comparison rules and the .io reader, as pure functions. */
import { describe, expect, it } from 'vitest';
import { compareResponse, formatDifferences, IoFileError, parseIoFile } from '../../core/conformance/rpcCompat/index.ts';

const diff = (got: unknown, want: unknown, specOnly = false): string[] =>
  formatDifferences(compareResponse(got, want, specOnly).differences);

describe('rpc-compat comparison', () => {
  it('default: key order is ignored and numbers compare by value', () => {
    expect(diff({ id: 1, result: { b: 1, a: [0.0042, 1e2] } }, { result: { a: [0.0042, 100], b: 1.0 }, id: 1 })).toEqual([]);
  });

  it('behavior: hex quantities are strings, compared exactly', () => {
    expect(diff({ result: '0x01' }, { result: '0x1' })).toEqual(['result: got "0x01", want "0x1"']);
  });

  it('behavior: missing, unexpected and array-length differences are named by path', () => {
    expect(diff({ result: { x: [1, 2], extra: true } }, { result: { x: [1], want: null } })).toEqual([
      'result.x[1]: unexpected, got 2',
      'result.want: missing, want null',
      'result.extra: unexpected, got true',
    ]);
  });

  it('behavior: when both sides hold an error, message is dropped but code and data count (nested too)', () => {
    const got = { error: { code: 3, message: 'execution reverted', data: '0x01' } };
    expect(diff(got, { error: { code: 3, message: 'reverted: other words', data: '0x01' } })).toEqual([]);
    expect(diff(got, { error: { code: 3, message: 'x', data: '0x02' } })).toEqual(['error.data: got "0x01", want "0x02"']);
    expect(diff({ result: [{ error: { code: -1, message: 'a' } }] }, { result: [{ error: { code: -1, message: 'b' } }] })).toEqual([]);
  });

  it('behavior: an error where a result is recorded (and the reverse) is a difference, message included', () => {
    expect(diff({ error: { code: -32601, message: 'nope' } }, { result: '0x1' })).toEqual([
      'result: missing, want "0x1"',
      'error: unexpected, got {"code":-32601,"message":"nope"}',
    ]);
  });

  it('behavior: speconly checks a successful answer for shape only, an error answer fully', () => {
    expect(diff({ result: { gas: '0x5', list: [] } }, { result: { gas: '0x1', list: [1, 2] } }, true)).toEqual([]);
    expect(diff({ result: { gas: 5 } }, { result: { gas: '0x1' } }, true)).toEqual(['result.gas: got 5, want "0x1"']);
    expect(diff({ error: { code: 1, message: 'm' } }, { result: '0x1' }, true)).toHaveLength(2);
  });
});

describe('.io reader', () => {
  it('default: requests, responses, header comments, speconly; later comments ignored', () => {
    const t = parseIoFile('m/case', '// about it\n// speconly: shape\n\n>> {"id":1}\n// later\n<<   {"id":1,"result":1}\n');
    expect(t.comment).toBe('about it\nspeconly: shape\n');
    expect(t.specOnly).toBe(true);
    expect(t.messages).toEqual([
      { send: true, data: '{"id":1}', line: 4 },
      { send: false, data: '{"id":1,"result":1}', line: 6 },
    ]);
  });

  it('error: invalid JSON and unknown lines name the file and line', () => {
    expect(() => parseIoFile('m/a', '>> {"id":\n')).toThrow(IoFileError);
    expect(() => parseIoFile('m/a', '>> {}\n<< {}\n-- script\n')).toThrow(/m\/a\.io:3: invalid test line: -- script/);
  });
});
