/**
 * Shared driver of `xone statetest` and `xone blocktest`: streams each file's cases (jsonScan.ts), parses and runs
 * only the selected ones, prints each failure with its reason and ends with `N passed, M failed`. Returns the counts
 * so the command can set its exit code. Cases of other networks or forks are counted as skipped without being parsed,
 * so a file's size costs scan time, never memory.
 */
import { jsonFilesIn } from './files.ts';
import { JsonScanError, parseEntry, scanEntries, type ScannedEntry, type ScanWants } from './jsonScan.ts';

/** Outcome of one case. */
export interface CaseResult {
  name: string;
  ok: boolean;
  reason?: string;
  /** Not run (a fork or network outside the selection, a seal engine this runner does not check; `reason` says which). */
  skipped?: boolean;
}

/** Runs the tests of one file's top-level entry. */
export type RunOne = (name: string, test: unknown) => Promise<CaseResult[]>;

/** What a runner selects on, and how it runs a selected case. */
export interface VectorRunner {
  /** Fields recorded while scanning past each case (what `skips` looks at). */
  wants: ScanWants;
  /** How many cases `entry` counts as skipped without being parsed; 0 = parse and run it. */
  skips(entry: ScannedEntry): number;
  /** Why `entry` is skipped, when not for its fork or network (`OTHER_FORKS`). */
  skipReason?(entry: ScannedEntry): string;
  runOne: RunOne;
}

/** Totals of a run. */
export interface RunSummary {
  passed: number;
  failed: number;
  skipped: number;
  /** Skipped cases per reason (the words after "skipped N cases"). */
  skippedFor: Map<string, number>;
  failures: CaseResult[];
}

/** The reason of a case skipped for its fork or network. */
export const OTHER_FORKS = 'of other forks or networks';

/**
 * The fork or network names a runner was asked for, checked against the ones this node knows: an unknown name is an
 * error naming it (never a run that silently matches nothing).
 */
export function selectNames(list: string | undefined, defaults: readonly string[], known: readonly string[], what: string): string[] {
  const names = (list ?? defaults.join(',')).split(',').map((f) => f.trim());
  for (const name of names) {
    if (!known.includes(name)) throw new Error(`unknown ${what} ${name} (this node runs: ${known.join(', ')})`);
  }
  return names;
}

/**
 * Runs `runner` over every selected case of every JSON file under `paths`, writing failures and the summary to
 * `write`. When nothing ran (every case was of another fork or network), says so in a line naming `selection`.
 */
export async function runVectorFiles(
  paths: readonly string[],
  runner: VectorRunner,
  write: (line: string) => void,
  selection = 'the selection',
): Promise<RunSummary> {
  const summary: RunSummary = { passed: 0, failed: 0, skipped: 0, skippedFor: new Map(), failures: [] };
  const skip = (count: number, reason = OTHER_FORKS): void => {
    summary.skipped += count;
    summary.skippedFor.set(reason, (summary.skippedFor.get(reason) ?? 0) + count);
  };
  const fail = (failure: CaseResult, where: string): void => {
    summary.failed++;
    summary.failures.push(failure);
    write(`FAIL ${where}: ${failure.reason ?? 'failed'}`);
  };
  for (const file of jsonFilesIn(paths)) {
    try {
      for (const entry of scanEntries(file, runner.wants)) {
        const skipped = runner.skips(entry);
        if (skipped > 0) {
          skip(skipped, runner.skipReason?.(entry));
          continue;
        }
        let test: unknown;
        try {
          test = parseEntry(file, entry);
        } catch (err) {
          fail({ name: entry.name, ok: false, reason: `unreadable JSON: ${(err as Error).message}` }, `${file} ${entry.name}`);
          continue;
        }
        for (const result of await runner.runOne(entry.name, test)) {
          if (result.skipped === true) skip(1, result.reason);
          else if (result.ok) summary.passed++;
          else fail(result, `${file} ${result.name}`);
        }
      }
    } catch (err) {
      if (!(err instanceof JsonScanError) && (err as NodeJS.ErrnoException).code === undefined) throw err;
      fail({ name: file, ok: false, reason: `unreadable JSON: ${(err as Error).message}` }, file);
    }
  }
  for (const [reason, count] of summary.skippedFor) write(`skipped ${count} cases ${reason}`);
  if (summary.passed + summary.failed === 0) write(`no case in these files is of ${selection}: nothing was run`);
  else write(`${summary.passed} passed, ${summary.failed} failed`);
  return summary;
}
