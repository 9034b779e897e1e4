/**
 * Entry point of the `xone` command line. Each subcommand lives in its own file under `core/cli/commands/` and is
 * registered here; `xone --help` lists exactly what is registered.
 */
import { Command, CommanderError } from 'commander';
import { commands } from './commands/index.ts';
import { CLIENT_NAME, CLIENT_VERSION } from '../version.ts';

/** Builds the program. Exported so tests can inspect the registered commands without spawning a process. */
export function buildProgram(): Command {
  const program = new Command()
    .name('xone')
    .description(`${CLIENT_NAME}: a full node for an Ethereum-compatible proof-of-authority network`)
    .version(CLIENT_VERSION, '-v, --version')
    .showHelpAfterError()
    .exitOverride();
  for (const register of commands) register(program);
  return program;
}

/** Runs the CLI and resolves to the process exit code (never calls process.exit itself, so tests can call it). */
export async function main(argv: readonly string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end through here with exitCode 0.
      return err.exitCode;
    }
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`error: ${message}\n`);
    return 1;
  }
}
