/**
 * `xone db …`: maintenance of the chain store in a datadir. `db check` walks every segment record and index row
 * and prints a JSON summary; exit 1 when it finds a problem or cannot open the datadir.
 */
import type { Command } from 'commander';

/** Registers `db` and its subcommands. */
export function registerDb(program: Command): void {
  const db = program.command('db').description('chain store maintenance');
  db.command('check')
    .description('verify every segment record (CRC-32C) and every index row; prints JSON, exit 1 on any problem')
    .requiredOption('--datadir <dir>', 'datadir holding chain.sqlite and segments/')
    .action(async (opts: { datadir: string }) => {
      // Loaded on use, so other commands (npm start) do not load the store checker.
      const { checkStore } = await import('../../store/check.ts');
      const { StoreError } = await import('../../store/errors.ts');
      try {
        const report = checkStore(opts.datadir);
        process.stdout.write(JSON.stringify(report, null, 2) + '\n');
        if (!report.ok) process.exitCode = 1;
      } catch (err) {
        const error = err instanceof StoreError ? err.toObject() : { name: 'Error', message: (err as Error).message };
        process.stdout.write(JSON.stringify({ ok: false, datadir: opts.datadir, error }, null, 2) + '\n');
        process.exitCode = 1;
      }
    });
}
