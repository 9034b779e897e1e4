import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { MeasureNodeError } from './errors.ts';
import { measureNode } from './measureNode.ts';
import { DEFAULT_BALANCE_ADDRESS, parseMethodSpec, presetMethods } from './methods.ts';
import { defaultMeasureOptions, type MeasureOptions } from './options.ts';
import { renderHtml } from './report/html.ts';
import { renderMarkdown } from './report/markdown.ts';
import type { MeasureReport } from './types.ts';
import { MEASURE_NODE_VERSION } from './version.ts';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** Builds the `measure-node` program; every flag is documented in docs/measure-node.md. */
export function buildMeasureNodeProgram(run: (options: MeasureOptions, out: string) => Promise<void>): Command {
  const program = new Command()
    .name('measure-node')
    .description('Records a JSON-RPC endpoint before and after a window: latency, failures with reasons, memory, I/O, datadir, slow blocks')
    .version(MEASURE_NODE_VERSION, '-v, --version')
    .argument('<url>', 'JSON-RPC endpoint, e.g. http://127.0.0.1:8545 or a gateway URL')
    .option('--window <seconds>', 'seconds between the before and after snapshots', num, defaultMeasureOptions.windowSec)
    .option('--calls <n>', 'calls per method per snapshot', num, defaultMeasureOptions.calls)
    .option('--pause-ms <ms>', 'pause between consecutive calls', num, defaultMeasureOptions.pauseMs)
    .option(
      '--timeout-ms <ms>',
      'a call without a complete response after this long fails as "transport timeout"',
      num,
      defaultMeasureOptions.timeoutMs,
    )
    .option(
      '--methods <list>',
      `comma-separated preset ids (default: ${presetMethods()
        .map((m) => m.id)
        .join(',')})`,
    )
    .option('--method <spec>', 'extra method, repeatable: NAME or NAME=JSON-params, e.g. eth_call=[{"to":"0x…"},"latest"]', collect, [])
    .option('--address <addr>', 'account for eth_getBalance', DEFAULT_BALANCE_ADDRESS)
    .option('--header <header>', 'request header "Name: value" (API keys), repeatable; values never reach the report', collect, [])
    .option('--pid <pid>', 'process to read /proc memory and I/O from', num)
    .option('--listen-port <port>', 'find the process listening on this port (default: the URL port when the URL is loopback)', num)
    .addOption(new Option('--no-proc', 'do not look for the process at all'))
    .option('--datadir <dir>', 'node datadir: growth and bytes per block over the window')
    .option('--log <file>', "node log holding slow-block JSON lines ('Slow block', geth 1.17 shape)")
    .option(
      '--out <prefix>',
      'write PREFIX.json, PREFIX.md and PREFIX.html',
      `measure-node-${new Date().toISOString().replace(/[:.]/g, '-')}`,
    )
    .showHelpAfterError()
    .exitOverride()
    .action(async (url: string, o: RawOptions) => run(toOptions(url, o), o.out));
  return program;
}

interface RawOptions {
  window: number;
  calls: number;
  pauseMs: number;
  timeoutMs: number;
  methods?: string;
  method: string[];
  address: string;
  header: string[];
  pid?: number;
  listenPort?: number;
  proc: boolean;
  datadir?: string;
  log?: string;
  out: string;
}

function toOptions(url: string, o: RawOptions): MeasureOptions {
  const ids = o.methods === undefined ? presetMethods().map((m) => m.id) : o.methods.split(',').filter((s) => s.trim() !== '');
  const methods = [...ids, ...o.method].map((spec) => parseMethodSpec(spec, o.address));
  let findPidFromPort: number | undefined;
  if (o.proc && o.pid === undefined) {
    const parsed = safeUrl(url);
    const urlPort = parsed ? Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80)) : undefined;
    findPidFromPort = o.listenPort ?? (parsed && LOOPBACK.has(parsed.hostname) ? urlPort : undefined);
  }
  return {
    ...defaultMeasureOptions,
    url,
    windowSec: o.window,
    calls: o.calls,
    pauseMs: o.pauseMs,
    timeoutMs: o.timeoutMs,
    methods,
    headers: Object.fromEntries(o.header.map(parseHeader)),
    pid: o.proc ? o.pid : undefined,
    findPidFromPort,
    datadir: o.datadir,
    logFile: o.log,
    onProgress: (line) => process.stderr.write(`measure-node: ${line}\n`),
  };
}

/** Parses `Name: value`. Exported for tests. */
export function parseHeader(text: string): [string, string] {
  const i = text.indexOf(':');
  const name = i < 0 ? '' : text.slice(0, i).trim();
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
    throw new MeasureNodeError('BAD_HEADER', `--header must be "Name: value", got ${JSON.stringify(text)}`);
  return [name, text.slice(i + 1).trim()];
}

/** Writes the three outputs next to each other and returns their paths. */
export async function writeReports(report: MeasureReport, prefix: string): Promise<{ json: string; md: string; html: string }> {
  await mkdir(dirname(prefix) || '.', { recursive: true });
  const paths = { json: `${prefix}.json`, md: `${prefix}.md`, html: `${prefix}.html` };
  await writeFile(paths.json, `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(paths.md, renderMarkdown(report));
  await writeFile(paths.html, renderHtml(report));
  return paths;
}

/** One-line summary printed last (the house rule for measurement tools). */
export function summaryLine(r: MeasureReport): string {
  const failed = (s: MeasureReport['before']) => s.methods.reduce((n, m) => n + m.failed, 0);
  const worstP95 = Math.max(0, ...r.after.methods.map((m) => m.p95Ms ?? 0));
  const rss = r.after.process ? ` rss=${(r.after.process.memory.rssBytes / 1e6).toFixed(1)}MB` : '';
  return `measure-node ${r.endpoint} window=${r.window.seconds}s blocks=${r.window.blocks ?? '?'} failed=${failed(r.before)}/${failed(r.after)} worst_after_p95=${worstP95.toFixed(2)}ms${rss}`;
}

/** Runs the CLI; resolves to the exit code (0 ok, 2 bad input, 1 other failure). */
export async function main(argv: readonly string[]): Promise<number> {
  const program = buildMeasureNodeProgram(async (options, out) => {
    const report = await measureNode(options);
    const paths = await writeReports(report, out);
    process.stdout.write(`${JSON.stringify({ summary: summaryLine(report), files: paths })}\n${summaryLine(report)}\n`);
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    process.stderr.write(`measure-node: error: ${err instanceof Error ? err.message : String(err)}\n`);
    return err instanceof MeasureNodeError ? 2 : 1;
  }
}

function num(v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n)) throw new MeasureNodeError('BAD_OPTION', `expected a number, got ${JSON.stringify(v)}`);
  return n;
}

function collect(v: string, acc: string[]): string[] {
  return [...acc, v];
}

function safeUrl(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}
