/**
 * Config file and environment equivalents of a command's flags (issue #5), with the precedence
 * flag > environment > config file > default:
 *   - `--config FILE` (or XONE_CONFIG): a JSON object whose keys are the flag names without `--`
 *     (`{ "http.port": 8545, "peer": ["http://a:8545"], "mine": true }`);
 *   - `XONE_<FLAG>`: the flag name upper-cased, `.` and `-` as `_` (XONE_HTTP_PORT, XONE_RPC_BATCH_REQUEST_LIMIT).
 * Every value is checked against its flag's kind before the command runs (a switch takes true/false, a number flag
 * an integer, a repeatable flag a list) and every bad key or value is reported in one error, so nothing starts on
 * a half-understood configuration. Range checks stay with the command (e.g. a port above 65535).
 */
import { readFileSync } from 'node:fs';
import type { Command, Option } from 'commander';
import { XoneError } from '../../errors.ts';

/** One error listing every problem found in the file and the environment. */
export class ConfigError extends XoneError<'CONFIG_INVALID'> {}

/** How a flag's value is written in a config file or an environment variable. */
export type FlagKind = 'switch' | 'integer' | 'string' | 'list';

/** Placeholders (`--http.port <port>`) whose values are integers. */
const INTEGER_PLACEHOLDERS = new Set(['port', 'n', 'ms', 'gas', 'bytes', 'seconds', 'perSecond']);

/** The key of a flag in a config file: its long name without `--` (`http.port`). */
const configKey = (option: Option): string => (option.long ?? '').replace(/^--/, '');

/** The environment variable of a flag: `--rpc.batch-request-limit` -> XONE_RPC_BATCH_REQUEST_LIMIT. */
const envName = (option: Option): string => 'XONE_' + configKey(option).toUpperCase().replace(/[.-]/g, '_');

/** The kind of value a flag takes. Repeatable flags are the ones whose default is a list. */
function flagKind(option: Option): FlagKind {
  if (option.isBoolean()) return 'switch';
  if (Array.isArray(option.defaultValue)) return 'list';
  const placeholder = /<([^>]+)>/.exec(option.flags)?.[1] ?? '';
  return INTEGER_PLACEHOLDERS.has(placeholder) ? 'integer' : 'string';
}

type Value = string | boolean | string[];
type Parsed = { ok: true; value: Value } | { ok: false; problem: string };

const KIND_TEXT: Record<FlagKind, string> = {
  switch: 'true or false',
  integer: 'an integer',
  string: 'a string',
  list: 'a string or a list of strings',
};

/** A config-file (JSON) value for a flag of `kind`, as the string/boolean/list commander would have produced. */
function fromFile(kind: FlagKind, raw: unknown): Parsed {
  const bad: Parsed = { ok: false, problem: `must be ${KIND_TEXT[kind]}, got ${JSON.stringify(raw)}` };
  switch (kind) {
    case 'switch':
      return typeof raw === 'boolean' ? { ok: true, value: raw } : bad;
    case 'integer':
      if (typeof raw === 'number' && Number.isSafeInteger(raw)) return { ok: true, value: String(raw) };
      return typeof raw === 'string' && /^-?[0-9]+$/.test(raw) ? { ok: true, value: raw } : bad;
    case 'string':
      return typeof raw === 'string' && raw !== '' ? { ok: true, value: raw } : bad;
    case 'list':
      if (typeof raw === 'string' && raw !== '') return { ok: true, value: [raw] };
      return Array.isArray(raw) && raw.length > 0 && raw.every((x) => typeof x === 'string' && x !== '')
        ? { ok: true, value: raw as string[] }
        : bad;
  }
}

/** An environment value (always text) for a flag of `kind`; lists are comma-separated. */
function fromEnv(kind: FlagKind, raw: string): Parsed {
  switch (kind) {
    case 'switch':
      if (raw === 'true' || raw === '1') return { ok: true, value: true };
      if (raw === 'false' || raw === '0') return { ok: true, value: false };
      return { ok: false, problem: `must be true, false, 1 or 0, got ${JSON.stringify(raw)}` };
    case 'integer':
      return /^-?[0-9]+$/.test(raw) ? { ok: true, value: raw } : { ok: false, problem: `must be an integer, got ${JSON.stringify(raw)}` };
    case 'string':
      return { ok: true, value: raw };
    case 'list': {
      const items = raw.split(',').map((s) => s.trim());
      return items.every((s) => s !== '')
        ? { ok: true, value: items }
        : { ok: false, problem: `must be a comma-separated list without empty items, got ${JSON.stringify(raw)}` };
    }
  }
}

/** The closest known key within two edits, for "did you mean" hints. */
function closest(key: string, known: readonly string[]): string | undefined {
  const distance = (a: string, b: string): number => {
    const row = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      let diag = row[0];
      row[0] = i;
      for (let j = 1; j <= b.length; j++) {
        const next = Math.min(row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
        diag = row[j];
        row[j] = next;
      }
    }
    return row[b.length];
  };
  let best: { key: string; d: number } | undefined;
  for (const k of known) {
    const d = distance(key, k);
    if (d <= 2 && (!best || d < best.d)) best = { key: k, d };
  }
  return best?.key;
}

/** Reads and shape-checks the config file: a JSON object. Problems go to `problems`; returns the entries. */
function readConfigFile(path: string, problems: string[]): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    problems.push(`config file ${path}: cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    return {};
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    problems.push(`config file ${path}: not valid JSON (${(err as Error).message})`);
    return {};
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    problems.push(
      `config file ${path}: must be a JSON object of flag names to values, got ${Array.isArray(parsed) ? 'a list' : JSON.stringify(parsed)}`,
    );
    return {};
  }
  return parsed as Record<string, unknown>;
}

/**
 * Fills the options of `command` that were not given as flags from the environment, then from the config file
 * (`--config` or XONE_CONFIG), after checking every entry of both. Throws one ConfigError listing every problem.
 * Call it from a `preAction` hook: commander has parsed the flags and not yet run the action.
 */
export function applyConfigSources(command: Command, env: NodeJS.ProcessEnv = process.env): void {
  const problems: string[] = [];
  const options = command.options.filter((o) => o.long && o.long !== '--config');
  const configOption = command.options.find((o) => o.long === '--config');
  const fromCli = (o: Option): boolean => command.getOptionValueSource(o.attributeName()) === 'cli';
  const envValue = (o: Option): string | undefined => (env[envName(o)] === '' ? undefined : env[envName(o)]);

  let configPath = configOption ? (command.getOptionValue(configOption.attributeName()) as string | undefined) : undefined;
  if (configOption && configPath === undefined) configPath = envValue(configOption);
  const file = configPath === undefined ? {} : readConfigFile(configPath, problems);
  const byKey = new Map(options.map((o) => [configKey(o), o]));
  const fileValues = new Map<Option, Value>();
  for (const [key, raw] of Object.entries(file)) {
    const option = byKey.get(key);
    if (!option) {
      const hint = closest(key, [...byKey.keys()]);
      problems.push(`config file ${configPath}: unknown key "${key}"${hint ? ` (did you mean "${hint}"?)` : ''}`);
      continue;
    }
    const parsed = fromFile(flagKind(option), raw);
    if (parsed.ok) fileValues.set(option, parsed.value);
    else problems.push(`config file ${configPath}: "${key}" ${parsed.problem}`);
  }

  const updates: { option: Option; value: Value; source: 'env' | 'config' }[] = [];
  for (const option of options) {
    const raw = envValue(option);
    const parsedEnv = raw === undefined ? undefined : fromEnv(flagKind(option), raw);
    if (parsedEnv && !parsedEnv.ok) problems.push(`${envName(option)} ${parsedEnv.problem}`);
    if (fromCli(option)) continue;
    if (parsedEnv?.ok) updates.push({ option, value: parsedEnv.value, source: 'env' });
    else if (!parsedEnv && fileValues.has(option)) updates.push({ option, value: fileValues.get(option) as Value, source: 'config' });
  }
  if (problems.length > 0) {
    throw new ConfigError(
      'CONFIG_INVALID',
      `invalid configuration (${problems.length} problem${problems.length > 1 ? 's' : ''}):\n  - ${problems.join('\n  - ')}`,
      { problems },
    );
  }
  for (const u of updates) command.setOptionValueWithSource(u.option.attributeName(), u.value, u.source);
}

/** Every flag of `command` with its config-file key, environment variable and value kind (docs and tests). */
export function configTable(command: Command): { flag: string; key: string; env: string; kind: FlagKind }[] {
  return command.options
    .filter((o) => o.long)
    .map((o) => ({ flag: o.long as string, key: configKey(o), env: envName(o), kind: flagKind(o) }));
}
