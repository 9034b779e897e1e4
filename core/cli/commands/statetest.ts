/**
 * `xone statetest FILE|DIR...`: runs ethereum/tests GeneralStateTests (London to Osaka post entries by
 * default) through the node's transaction executor. Prints each failure with its reason, ends with
 * `N passed, M failed`, exits 1 on any failure.
 */
import type { Command } from 'commander';
import type { StateTestJson } from '../../exec/vectors/stateTest.ts';

/** Registers `statetest`. */
export function registerStatetest(program: Command): void {
  program
    .command('statetest')
    .description('run GeneralStateTests JSON files (London to Osaka post entries) through the executor')
    .argument('<paths...>', 'test files or directories (walked recursively)')
    .option('--fork <names>', 'comma-separated fork names of the post entries to run (default: London,Shanghai,Cancun,Prague,Osaka)')
    .action(async (paths: string[], opts: { fork?: string }) => {
      // Loaded here, not at the top: every `xone` start (npm start too) would otherwise load the executor first.
      const { DEFAULT_STATE_TEST_FORKS, runStateTest } = await import('../../exec/vectors/stateTest.ts');
      const { runVectorFiles, selectNames } = await import('../../exec/vectors/runFiles.ts');
      const { stateTestSelection } = await import('../../exec/vectors/select.ts');
      const { TEST_FORK_ALIASES } = await import('../../chain/forks.ts');
      const forks = selectNames(opts.fork, DEFAULT_STATE_TEST_FORKS, Object.keys(TEST_FORK_ALIASES), 'fork');
      const summary = await runVectorFiles(
        paths,
        { ...stateTestSelection(forks), runOne: (name, test) => runStateTest(name, test as StateTestJson, forks) },
        (line) => process.stdout.write(`${line}\n`),
        `fork ${forks.join(', ')}`,
      );
      process.exitCode = summary.failed > 0 || summary.passed === 0 ? 1 : 0;
    });
}
