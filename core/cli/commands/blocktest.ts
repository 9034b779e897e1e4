/**
 * `xone blocktest FILE|DIR...`: runs ethereum/tests BlockchainTests through the import pipeline with a fresh
 * temporary datadir per test (London to Osaka networks by default). Prints each failure with its reason, ends
 * with `N passed, M failed`, exits 1 on any failure.
 */
import type { Command } from 'commander';
import type { BlockTestJson } from '../../exec/vectors/blockTest.ts';

/** Registers `blocktest`. */
export function registerBlocktest(program: Command): void {
  program
    .command('blocktest')
    .description('run BlockchainTests JSON files (London to Osaka networks) through the block import pipeline')
    .argument('<paths...>', 'test files or directories (walked recursively)')
    .option('--network <names>', 'comma-separated networks to run (default: London,Shanghai,Cancun,Prague,Osaka)')
    .action(async (paths: string[], opts: { network?: string }) => {
      // Loaded here, not at the top: every `xone` start (npm start too) would otherwise load the executor first.
      const { DEFAULT_BLOCK_TEST_NETWORKS, runBlockTest } = await import('../../exec/vectors/blockTest.ts');
      const { runVectorFiles, selectNames } = await import('../../exec/vectors/runFiles.ts');
      const { blockTestSelection } = await import('../../exec/vectors/select.ts');
      const { TEST_FORK_ALIASES } = await import('../../chain/forks.ts');
      const networks = selectNames(opts.network, DEFAULT_BLOCK_TEST_NETWORKS, Object.keys(TEST_FORK_ALIASES), 'network');
      const summary = await runVectorFiles(
        paths,
        { ...blockTestSelection(networks), runOne: (name, test) => runBlockTest(name, test as BlockTestJson, networks) },
        (line) => process.stdout.write(`${line}\n`),
        `network ${networks.join(', ')}`,
      );
      process.exitCode = summary.failed > 0 || summary.passed === 0 ? 1 : 0;
    });
}
