/**
 * `xone import --genesis G --datadir D FILE.rlp...`: trusted import of concatenated RLP blocks (as execution-apis'
 * chain.rlp) through the real pipeline with seal checks off, verifying every root. Blocks already on the canonical
 * chain are skipped; the first invalid block stops the import with its reason (exit 1), leaving the store at the
 * last good block. Shows blocks/s and tx/s on a TTY and ends with one summary line.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';

interface ImportOptions {
  genesis: string;
  datadir: string;
  history?: string;
}

/** Registers `import`. */
export function registerImport(program: Command): void {
  program
    .command('import')
    .description('import concatenated RLP blocks (trusted: no seal checks; every root verified)')
    .argument('<files...>', 'files of concatenated RLP blocks')
    .requiredOption('--genesis <file>', 'genesis.json of the chain')
    .requiredOption('--datadir <dir>', 'data directory (created when missing)')
    .option('--state.history <blocks>', 'keep state history for only the last N blocks (default: full history)')
    .action(async (files: string[], opts: ImportOptions & Record<string, string | undefined>) => {
      // Loaded on use, so other commands (npm start) do not load the genesis parser and the importer first.
      const { parseGenesis } = await import('../../chain/genesis/index.ts');
      const genesis = parseGenesis(readFileSync(opts.genesis, 'utf8'));
      const { importBlocks } = await import('../../exec/import/importFile.ts');
      const history = opts['state.history'] ?? opts.stateHistory;
      const summary = await importBlocks({
        genesis,
        datadir: opts.datadir,
        files,
        historyBlocks: history === undefined ? undefined : Number(history),
        progress: process.stderr.isTTY ? (line) => process.stderr.write(`\r${line}`) : undefined,
      });
      if (process.stderr.isTTY) process.stderr.write('\n');
      process.stdout.write(`${summary.line}\n`);
      if (summary.error !== undefined) {
        process.stderr.write(`error: ${summary.error}\n`);
        process.exitCode = 1;
      }
    });
}
