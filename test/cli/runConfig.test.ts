/**
 * `xone run --config FILE` and XONE_* variables through the real CLI parsing (commander + the preAction hook): kinds
 * are checked, every problem is listed in one error, and flag > environment > file > default. The action is replaced
 * by a probe so no node starts; test/cli/runConfigNode.test.ts starts one from a config file.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { configTable } from '../../core/cli/config/runConfig.ts';
import { buildProgram, main } from '../../core/cli/main.ts';

const dir = mkdtempSync(join(tmpdir(), 'xone-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const setEnv: string[] = [];
afterEach(() => {
  for (const k of setEnv.splice(0)) delete process.env[k];
});
function env(vars: Record<string, string>): void {
  for (const [k, v] of Object.entries(vars)) {
    process.env[k] = v;
    setEnv.push(k);
  }
}
let files = 0;
function configFile(content: unknown): string {
  const path = join(dir, `config-${files++}.json`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

/** Parses `xone run ...args` for real and returns the flags the action would get. */
async function parseRun(args: string[]): Promise<Record<string, unknown>> {
  const program = buildProgram();
  const run = program.commands.find((c) => c.name() === 'run')!;
  let seen: Record<string, unknown> | undefined;
  run.action((flags: Record<string, unknown>) => {
    seen = flags;
  });
  await program.parseAsync(['run', ...args], { from: 'user' });
  return seen!;
}

describe('xone run config file and environment', () => {
  it('default: a config file sets unset flags with the kinds commander gives (numbers as text, lists, switches)', async () => {
    const path = configFile({
      'http.port': 9545,
      peer: ['http://a:1', 'http://b:2'],
      mine: true,
      'rpc.batch-request-limit': '50',
      datadir: '/tmp/x',
    });
    const flags = await parseRun(['--config', path]);
    expect(flags).toMatchObject({
      'http.port': '9545',
      peer: ['http://a:1', 'http://b:2'],
      mine: true,
      'rpc.batchRequestLimit': '50',
      datadir: '/tmp/x',
    });
    expect(flags['http.addr']).toBe('127.0.0.1');
  });

  it('behavior: precedence is flag > XONE_* > file > default, and XONE_CONFIG names the file', async () => {
    const path = configFile({ 'http.port': 1111, 'http.addr': '0.0.0.0', verbosity: 'debug', peer: 'http://file:1' });
    env({ XONE_CONFIG: path, XONE_HTTP_PORT: '2222', XONE_VERBOSITY: 'warn', XONE_PEER: 'http://env:1, http://env:2', XONE_DEV: 'true' });
    const flags = await parseRun(['--http.port', '3333']);
    expect(flags['http.port']).toBe('3333'); // flag beats env and file
    expect(flags.verbosity).toBe('warn'); // env beats file
    expect(flags['http.addr']).toBe('0.0.0.0'); // file beats default
    expect(flags.peer).toEqual(['http://env:1', 'http://env:2']);
    expect(flags.dev).toBe(true);
    expect(flags.batch).toBeUndefined(); // set nowhere: the command's default applies
    env({ XONE_DEV: '0' });
    expect((await parseRun([])).dev).toBe(false);
  });

  it('error: unknown keys and wrong kinds in the file and the environment are all listed in one error', async () => {
    const path = configFile({ 'http.prot': 8545, mine: 'yes', 'http.port': true, peer: [1], bogus: 1 });
    env({ XONE_BATCH: 'many', XONE_MINE: 'maybe' });
    const err = await parseRun(['--config', path]).catch((e: unknown) => e as Error & { code?: string });
    expect(err).toBeInstanceOf(Error);
    expect(err.code).toBe('CONFIG_INVALID');
    expect(err.message).toContain('invalid configuration (7 problems)');
    expect(err.message).toContain(`config file ${path}: unknown key "http.prot" (did you mean "http.port"?)`);
    expect(err.message).toContain(`config file ${path}: unknown key "bogus"\n`);
    expect(err.message).toContain(`"mine" must be true or false, got "yes"`);
    expect(err.message).toContain(`"http.port" must be an integer, got true`);
    expect(err.message).toContain(`"peer" must be a string or a list of strings, got [1]`);
    expect(err.message).toContain('XONE_BATCH must be an integer, got "many"');
    expect(err.message).toContain('XONE_MINE must be true, false, 1 or 0, got "maybe"');
  });

  it('error: a missing, non-JSON or non-object file fails before anything starts, with exit code 1 from main', async () => {
    await expect(parseRun(['--config', join(dir, 'nope.json')])).rejects.toThrow(/nope\.json: cannot be read \(ENOENT\)/);
    await expect(parseRun(['--config', configFile('{"dev": true,')])).rejects.toThrow(/not valid JSON/);
    await expect(parseRun(['--config', configFile([1, 2])])).rejects.toThrow(/must be a JSON object of flag names to values, got a list/);
    const write = process.stderr.write.bind(process.stderr);
    let stderr = '';
    process.stderr.write = ((chunk: string) => ((stderr += chunk), true)) as typeof process.stderr.write;
    try {
      expect(await main(['run', '--config', configFile({ 'no-such-flag': 1 })])).toBe(1);
    } finally {
      process.stderr.write = write;
    }
    expect(stderr).toMatch(/^error: invalid configuration \(1 problem\):\n {2}- config file .*: unknown key "no-such-flag"/);
  });

  it('behavior: every run flag has a distinct XONE_* name and a config key', () => {
    const run = buildProgram().commands.find((c) => c.name() === 'run')!;
    const table = configTable(run);
    expect(table.length).toBe(run.options.length);
    expect(new Set(table.map((r) => r.env)).size).toBe(table.length);
    expect(table.find((r) => r.flag === '--rpc.batch-request-limit')).toEqual({
      flag: '--rpc.batch-request-limit',
      key: 'rpc.batch-request-limit',
      env: 'XONE_RPC_BATCH_REQUEST_LIMIT',
      kind: 'integer',
    });
    expect(table.find((r) => r.flag === '--peer')?.kind).toBe('list');
    expect(table.find((r) => r.flag === '--dev')?.kind).toBe('switch');
  });
});
