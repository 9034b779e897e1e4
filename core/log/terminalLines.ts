/**
 * Log lines for a person at a terminal, as geth prints them: `INFO [12-01|11:35:00.123] Message   key=value ...`
 * (level, local time, message padded to 40 columns, then the fields; nested objects as compact JSON). A pino
 * destination: it receives pino's JSON lines and writes the readable form synchronously to `fd`.
 */
import { writeSync } from 'node:fs';

const LEVELS: Readonly<Record<string, string>> = {
  trace: 'TRACE',
  debug: 'DEBUG',
  info: 'INFO ',
  warn: 'WARN ',
  error: 'ERROR',
  fatal: 'CRIT ',
};
const COLORS: Readonly<Record<string, string>> = { trace: '36', debug: '36', info: '32', warn: '33', error: '31', fatal: '35' };
/** Fields pino adds that the line shows otherwise (level, time, message) or not at all. */
const HIDDEN = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'name']);
const MESSAGE_WIDTH = 40;

const two = (n: number): string => String(n).padStart(2, '0');

/** geth's `[MM-DD|HH:MM:SS.mmm]` in local time. */
export function terminalTime(d: Date): string {
  return `[${two(d.getMonth() + 1)}-${two(d.getDate())}|${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, '0')}]`;
}

function value(v: unknown): string {
  if (typeof v === 'string') return /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v);
  if (v !== null && typeof v === 'object') {
    if ('message' in v && 'type' in v && 'stack' in v) return JSON.stringify((v as { message: unknown }).message);
    return JSON.stringify(v);
  }
  return String(v);
}

/** One pino JSON line as a terminal line (`color`: ANSI colour on the level). */
export function terminalLine(json: string, color: boolean): string {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : json + '\n';
  }
  const level = String(o.level ?? 'info');
  const tag = LEVELS[level] ?? level.toUpperCase().padEnd(5);
  const time = terminalTime(typeof o.time === 'string' || typeof o.time === 'number' ? new Date(o.time) : new Date());
  const msg = String(o.msg ?? '');
  const fields = Object.entries(o)
    .filter(([k]) => !HIDDEN.has(k))
    .map(([k, v]) => `${k}=${value(v)}`)
    .join(' ');
  const head = color ? `\x1b[${COLORS[level] ?? '0'}m${tag}\x1b[0m` : tag;
  return `${head} ${time} ${fields ? msg.padEnd(MESSAGE_WIDTH) + ' ' + fields : msg}\n`;
}

/** The pino destination: readable lines on `fd` (stdout by default), coloured when it is a terminal. */
export function terminalDestination(fd = 1, color = true): { write(line: string): void } {
  return {
    write(line: string): void {
      writeSync(fd, terminalLine(line, color));
    },
  };
}
