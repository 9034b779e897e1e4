/**
 * Replays `.io` tests against a JSON-RPC endpoint the way hive's rpc-compat does: every `>>` line is POSTed as is,
 * the `<<` line after it is compared with the answer (compare.ts), a test passes when all its round trips match.
 * Each failure is written with its request and a diff; the last line is `N passed, M failed`.
 */
import { compareResponse, formatDifferences } from './compare.ts';
import { listIoFiles, readIoFile, type IoTest } from './ioFile.ts';
import { startFixtureNode, type FixtureNodeOptions } from './fixtureNode.ts';

/** Outcome of one test file. */
export interface TestResult {
  name: string;
  ok: boolean;
  /** Why it failed: the round trip, the request, the differences. */
  detail?: string[];
}

export interface RunSummary {
  passed: number;
  failed: number;
  results: TestResult[];
}

/** hive's per-request timeout. */
const REQUEST_TIMEOUT_MS = 5_000;

async function post(url: string, body: string): Promise<string> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  return (await res.text()).trim();
}

const cut = (s: string, n = 300): string => (s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s);

/** Runs one test's round trips in order; the first mismatch fails it. */
export async function runIoTest(url: string, test: IoTest): Promise<TestResult> {
  let response: { text: string; request: string; trip: number } | undefined;
  let trip = 0;
  for (const msg of test.messages) {
    if (msg.send) {
      trip++;
      try {
        response = { text: await post(url, msg.data), request: msg.data, trip };
      } catch (err) {
        return { name: test.name, ok: false, detail: [`round trip ${trip} (line ${msg.line}): request failed: ${(err as Error).message}`] };
      }
      continue;
    }
    if (!response) return { name: test.name, ok: false, detail: [`line ${msg.line}: invalid test, response before request`] };
    let got: unknown;
    try {
      got = JSON.parse(response.text);
    } catch {
      return { name: test.name, ok: false, detail: [`round trip ${response.trip}: invalid JSON response: ${cut(response.text)}`] };
    }
    const { differences, redacted } = compareResponse(got, JSON.parse(msg.data), test.specOnly);
    if (differences.length > 0) {
      return {
        name: test.name,
        ok: false,
        detail: [
          `round trip ${response.trip} (line ${msg.line})${test.specOnly ? ', speconly' : ''}${redacted ? ', error messages not compared' : ''}`,
          `>> ${cut(response.request)}`,
          `<< ${cut(response.text)}`,
          ...formatDifferences(differences),
        ],
      };
    }
    response = undefined;
  }
  if (response)
    return { name: test.name, ok: false, detail: [`round trip ${response.trip}: unhandled response (no << line after the request)`] };
  return { name: test.name, ok: true };
}

/** Runs every `.io` file under `testsDir` against `url`, writing failures and the summary line. */
export async function runIoTests(url: string, testsDir: string, write: (line: string) => void): Promise<RunSummary> {
  const summary: RunSummary = { passed: 0, failed: 0, results: [] };
  for (const file of listIoFiles(testsDir)) {
    let result: TestResult;
    try {
      result = await runIoTest(url, readIoFile(file.name, file.path));
    } catch (err) {
      result = { name: file.name, ok: false, detail: [(err as Error).message] };
    }
    summary.results.push(result);
    if (result.ok) {
      summary.passed++;
    } else {
      summary.failed++;
      write(`FAIL ${result.name}`);
      for (const line of result.detail ?? []) write(`  ${line}`);
    }
  }
  write(`${summary.passed} passed, ${summary.failed} failed`);
  return summary;
}

/** The whole tool: import the suite's chain, start the node, replay every test, stop the node. */
export async function runRpcCompat(opts: FixtureNodeOptions, write: (line: string) => void): Promise<RunSummary> {
  const node = await startFixtureNode(opts);
  try {
    write(`imported ${node.imported} blocks, head ${node.head.number} ${node.head.hash}; RPC at ${node.url}`);
    return await runIoTests(node.url, opts.testsDir, write);
  } finally {
    await node.close();
  }
}
