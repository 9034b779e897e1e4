/** Runs an external checker (systemd-analyze, promtool, docker-compose) and returns its exit code and all output. */
import { spawnSync } from 'node:child_process';

export interface ToolResult {
  status: number | null;
  stdout: string;
  stderr: string;
  /** stdout and stderr together, for "fails on any output" checks. */
  output: string;
}

export function runTool(command: string, args: string[], cwd?: string): ToolResult {
  const r = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 60_000 });
  if (r.error) throw new Error(`${command} could not run: ${r.error.message} (is its Debian package installed? see .ci/run)`);
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, output: `${r.stdout}${r.stderr}` };
}
