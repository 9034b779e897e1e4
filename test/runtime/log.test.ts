import { describe, expect, it } from 'vitest';
import { createCapturingLogger, createLogger, REDACTED } from '../../core/log/index.ts';

function collect(): { lines: Record<string, unknown>[]; stream: { write(s: string): void } } {
  const lines: Record<string, unknown>[] = [];
  return { lines, stream: { write: (s: string) => lines.push(JSON.parse(s)) } };
}

describe('createLogger', () => {
  it('default: one JSON object per line with level label, msg, time and fields', () => {
    const { lines, stream } = collect();
    const log = createLogger({ destination: stream, name: 'xone' });
    log.info('Imported block', { number: 7, gas: 21000n });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'info', msg: 'Imported block', name: 'xone', number: 7, gas: '21000' });
    expect(typeof lines[0].time).toBe('string');
  });

  it('behavior: levels below the threshold are dropped', () => {
    const { lines, stream } = collect();
    const log = createLogger({ destination: stream, level: 'warn' });
    log.info('quiet');
    log.debug('quieter');
    log.warn('loud');
    log.error('louder');
    expect(lines.map((l) => l.level)).toEqual(['warn', 'error']);
  });

  it('behavior: child loggers bind fields', () => {
    const { lines, stream } = collect();
    createLogger({ destination: stream }).child({ module: 'chain' }).child({ worker: 2 }).warn('x', { a: 1 });
    expect(lines[0]).toMatchObject({ module: 'chain', worker: 2, a: 1, msg: 'x' });
  });

  it('behavior: secrets are redacted at the top level, one down and in headers', () => {
    const { lines, stream } = collect();
    const log = createLogger({ destination: stream, redactKeys: ['dbUrl'] });
    log.info('cfg', {
      privateKey: '0xdead',
      password: 'hunter2',
      signer: { keystore: 'a.json', passphrase: 'p', mnemonic: 'test test' },
      req: { headers: { authorization: 'Bearer abc', host: 'h' } },
      dbUrl: 'postgres://u:p@h',
      ok: 'visible',
    });
    const line = lines[0] as Record<string, Record<string, unknown>> & Record<string, unknown>;
    const text = JSON.stringify(line);
    for (const secret of ['0xdead', 'hunter2', 'Bearer abc', 'test test', 'postgres://']) expect(text).not.toContain(secret);
    expect(line.privateKey).toBe(REDACTED);
    expect(line.signer.keystore).toBe('a.json');
    expect(line.ok).toBe('visible');
  });

  it("behavior: a child's bound secrets are redacted, nested bigints written as strings, the caller's fields left as they were", () => {
    const { lines, stream } = collect();
    const fields = { split: { gas: 5n, token: 't0k' }, n: 1n };
    createLogger({ destination: stream }).child({ apiKey: 'k3y', module: 'rpc' }).info('x', fields);
    expect(lines[0]).toMatchObject({ apiKey: REDACTED, module: 'rpc', split: { gas: '5', token: REDACTED }, n: '1' });
    expect(fields).toEqual({ split: { gas: 5n, token: 't0k' }, n: 1n });
  });
});

describe('createCapturingLogger', () => {
  it('default: children share records and merge bindings', () => {
    const log = createCapturingLogger('info');
    log.child({ module: 'rpc' }).warn('shed', { lateMs: 120 });
    log.debug('dropped');
    expect(log.records).toEqual([{ level: 'warn', msg: 'shed', ctx: { module: 'rpc', lateMs: 120 } }]);
  });
});
