/**
 * Shared driver of `xone statetest` and `xone blocktest`: runs every test in every file, prints each failure with
 * its reason and ends with `N passed, M failed`. Returns the counts so the command can set its exit code.
 */
import { readFileSync } from 'node:fs';
import { jsonFilesIn } from './files.ts';

/** Outcome of one case. */
export interface CaseResult {
  name: string;
  ok: boolean;
  reason?: string;
  /** Not run: a fork or network outside the selection. Counted apart from passes and failures. */
  skipped?: boolean;
}

/** Runs the tests of one file's top-level entry. */
export type RunOne = (name: string, test: unknown) => Promise<CaseResult[]>;

/** Totals of a run. */
export interface RunSummary {
  passed: number;
  failed: number;
  skipped: number;
  failures: CaseResult[];
}

/** Runs `runOne` over every test of every JSON file under `paths`, writing failures and the summary to `write`. */
export async function runVectorFiles(paths: readonly string[], runOne: RunOne, write: (line: string) => void): Promise<RunSummary> {
  const summary: RunSummary = { passed: 0, failed: 0, skipped: 0, failures: [] };
  for (const file of jsonFilesIn(paths)) {
    let json: Record<string, unknown>;
    try {
      json = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    } catch (err) {
      summary.failed++;
      const failure = { name: file, ok: false, reason: `unreadable JSON: ${err instanceof Error ? err.message : String(err)}` };
      summary.failures.push(failure);
      write(`FAIL ${failure.name}: ${failure.reason}`);
      continue;
    }
    for (const [name, test] of Object.entries(json)) {
      for (const result of await runOne(name, test)) {
        if (result.skipped === true) {
          summary.skipped++;
        } else if (result.ok) {
          summary.passed++;
        } else {
          summary.failed++;
          summary.failures.push(result);
          write(`FAIL ${file} ${result.name}: ${result.reason ?? 'failed'}`);
        }
      }
    }
  }
  if (summary.skipped > 0) write(`skipped ${summary.skipped} cases of other forks or networks`);
  write(`${summary.passed} passed, ${summary.failed} failed`);
  return summary;
}
