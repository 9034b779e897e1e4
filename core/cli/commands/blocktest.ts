/**
 * `xone blocktest FILE|DIR...`: runs ethereum/tests BlockchainTests through the import pipeline with a fresh
 * temporary datadir per test (London and Shanghai networks by default). Prints each failure with its reason, ends
 * with `N passed, M failed`, exits 1 on any failure.
 */
import type { Command } from 'commander';
import { DEFAULT_BLOCK_TEST_NETWORKS, runBlockTest, type BlockTestJson } from '../../exec/vectors/blockTest.ts';
import { runVectorFiles } from '../../exec/vectors/runFiles.ts';

/** Registers `blocktest`. */
export function registerBlocktest(program: Command): void {
  program
    .command('blocktest')
    .description('run BlockchainTests JSON files (London/Shanghai networks) through the block import pipeline')
    .argument('<paths...>', 'test files or directories (walked recursively)')
    .option('--network <names>', 'comma-separated networks to run', DEFAULT_BLOCK_TEST_NETWORKS.join(','))
    .action(async (paths: string[], opts: { network: string }) => {
      const networks = opts.network.split(',').map((f) => f.trim());
      const summary = await runVectorFiles(
        paths,
        (name, test) => runBlockTest(name, test as BlockTestJson, networks),
        (line) => process.stdout.write(`${line}\n`),
      );
      process.exitCode = summary.failed > 0 || summary.passed === 0 ? 1 : 0;
    });
}
