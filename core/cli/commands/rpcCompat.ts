/**
 * `xone rpc-compat --tests DIR`: imports DIR/genesis.json + DIR/chain.rlp into a temporary datadir (trusted import),
 * serves the node's RPC on a random 127.0.0.1 port and replays every DIR/**.io round trip (execution-apis format),
 * comparing like hive's rpc-compat. Prints each failure with a diff, ends with `N passed, M failed`, exits 1 on any
 * failure (or when no test ran).
 */
import type { Command } from 'commander';

interface RpcCompatOptions {
  tests: string;
  workdir?: string;
  keepDatadir?: boolean;
}

/** Registers `rpc-compat`. */
export function registerRpcCompat(program: Command): void {
  program
    .command('rpc-compat')
    .description('run execution-apis JSON-RPC conformance tests (.io files) against a node on the suite chain')
    .requiredOption('--tests <dir>', 'folder with genesis.json, chain.rlp and <method>/<case>.io files')
    .option('--workdir <dir>', 'where the temporary datadir is made (default: the OS temp folder)')
    .option('--keep-datadir', 'keep the imported datadir after the run')
    .action(async (opts: RpcCompatOptions) => {
      // Loaded on use, so other commands (npm start) do not load the conformance runner.
      const { runRpcCompat } = await import('../../conformance/rpcCompat/index.ts');
      const summary = await runRpcCompat(
        { testsDir: opts.tests, ...(opts.workdir ? { workDir: opts.workdir } : {}), keepDatadir: opts.keepDatadir === true },
        (line) => process.stdout.write(`${line}\n`),
      );
      process.exitCode = summary.failed > 0 || summary.passed === 0 ? 1 : 0;
    });
}
