/** The terminal log format (`--log.format terminal`, the default on a TTY): geth-style readable lines from pino's JSON. */
import { describe, expect, it } from 'vitest';
import { terminalLine, terminalTime } from '../../core/log/terminalLines.ts';

describe('terminal log lines', () => {
  it('default: level, time, message padded to 40 columns, then key=value fields', () => {
    const time = '2026-12-01T11:35:00.123Z';
    const json = JSON.stringify({
      level: 'info',
      time,
      pid: 7,
      name: 'xone',
      msg: 'mined transaction',
      hash: '0xab',
      gasUsed: 21000,
      status: 'success',
    });
    const line = terminalLine(json, false);
    expect(line).toBe(`INFO  ${terminalTime(new Date(time))} ${'mined transaction'.padEnd(40)} hash=0xab gasUsed=21000 status=success\n`);
    expect(terminalTime(new Date(time))).toMatch(/^\[\d\d-\d\d\|\d\d:\d\d:\d\d\.123\]$/);
  });

  it('behavior: nested values as compact JSON, strings with spaces quoted, colour only when asked', () => {
    const json = JSON.stringify({ level: 'warn', time: 0, msg: 'sealed block', split: { selectMs: 0 }, note: 'two words' });
    const plain = terminalLine(json, false);
    expect(plain).toMatch(/^WARN  \[/);
    expect(plain).toContain('split={"selectMs":0} note="two words"');
    expect(terminalLine(json, true)).toMatch(/^\x1b\[33mWARN \x1b\[0m/);
    expect(terminalLine(JSON.stringify({ level: 'error', time: 0, msg: 'no fields' }), false)).toMatch(/^ERROR \[[^\]]+\] no fields\n$/);
  });

  it('error: a line that is not JSON passes through unchanged', () => {
    expect(terminalLine('not json', false)).toBe('not json\n');
  });
});
