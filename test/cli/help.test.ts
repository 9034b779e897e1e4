/** `xone --help` through the real bin, as a user runs it after `npm ci`. */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../core/cli/main.ts';

const bin = join(import.meta.dirname, '..', '..', 'bin', 'xone.mjs');

describe('xone --help', () => {
  it('default: prints usage and every registered command, exit 0', () => {
    const out = execFileSync(process.execPath, [bin, '--help'], { encoding: 'utf8' });
    expect(out).toMatch(/^Usage: xone/m);
    for (const cmd of buildProgram().commands) expect(out).toContain(cmd.name());
  });

  it('behavior: --version prints the client version', () => {
    const out = execFileSync(process.execPath, [bin, '--version'], { encoding: 'utf8' });
    expect(out.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('error: an unknown command exits non-zero with a message', () => {
    let status = 0;
    let stderr = '';
    try {
      execFileSync(process.execPath, [bin, 'no-such-command'], { encoding: 'utf8', stdio: 'pipe' });
    } catch (err) {
      const e = err as { status: number; stderr: string };
      status = e.status;
      stderr = e.stderr;
    }
    expect(status).not.toBe(0);
    expect(stderr).toMatch(/unknown command|too many arguments/);
  });
});
