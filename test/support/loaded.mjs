#!/usr/bin/env node
// `npm run test:loaded`: the whole `npm test` (lint, type-check, every test) while another process keeps every core
// busy, as a shared CI host or a laptop compiling in the background would (issue #12: the suite must pass on a busy
// machine). One busy-loop child per core (os.availableParallelism()), started before the suite and killed after it,
// whatever the outcome; prints the wall-clock time and exits with the suite's status.
// A stale dist/ is rebuilt first: otherwise every `xone` the tests spawn compiles the TypeScript sources on start, which
// on a saturated host outlasts the 60 s start-up bounds (seen when a landing rebased the checkout during a run). For
// the same reason, leave the checkout alone while it runs (run it in a `git worktree` of its own to keep editing).
import { spawn, spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { freshBuild } from '../../bin/freshBuild.mjs';

const stale = freshBuild('xone.mjs').stale;
if (stale !== undefined) {
  process.stdout.write(`test:loaded: rebuilding dist/ first (${stale})\n`);
  const build = spawnSync(process.execPath, [join(import.meta.dirname, '..', '..', 'bin', 'build.mjs')], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const cores = availableParallelism();
const hogs = Array.from({ length: cores }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
const stopHogs = () => {
  for (const h of hogs) if (h.exitCode === null && h.signalCode === null) h.kill('SIGKILL');
};
process.on('exit', stopHogs);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

const started = Date.now();
const suite = spawn('npm', ['test'], { stdio: 'inherit' });
suite.on('exit', (code, signal) => {
  stopHogs();
  const seconds = Math.round((Date.now() - started) / 1000);
  process.stdout.write(
    `\ntest:loaded: npm test took ${seconds} s with ${cores} busy-loop processes (one per core); exit ${code ?? signal}\n`,
  );
  process.exit(code ?? 1);
});
