/**
 * The execution-apis `.io` test format, read as hive's rpc-compat reads it: each line is trimmed; blank lines are
 * skipped; `//` lines before the first message are the test's description (one starting `speconly:` marks a test
 * whose successful answers are checked for shape only), later ones are ignored; `>>` is a request and `<<` the
 * response expected for the request before it, each valid JSON. Anything else makes the file invalid.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { XoneError } from '../../errors.ts';

/** One line of a test: a request to send or a response to expect. */
export interface IoMessage {
  send: boolean;
  /** The JSON text after the marker. */
  data: string;
  /** 1-based line number in the file. */
  line: number;
}

export interface IoTest {
  /** Path under the tests folder without `.io`, with `/` separators (hive's test name). */
  name: string;
  comment: string;
  specOnly: boolean;
  messages: IoMessage[];
}

/** A file that does not follow the format, naming the line. */
export class IoFileError extends XoneError<'IO_FILE_INVALID'> {}

/** Parses one file's text. Throws IoFileError naming the first bad line. */
export function parseIoFile(name: string, text: string): IoTest {
  const test: IoTest = { name, comment: '', specOnly: false, messages: [] };
  let inHeader = true;
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line.length === 0) continue;
    if (line.startsWith('//')) {
      if (!inHeader) continue;
      const comment = line.slice(2).replace(/^ /, '');
      test.comment += `${comment}\n`;
      if (comment.startsWith('speconly:')) test.specOnly = true;
      continue;
    }
    if (line.startsWith('>>') || line.startsWith('<<')) {
      inHeader = false;
      const data = line.slice(2).trim();
      try {
        JSON.parse(data);
      } catch (err) {
        throw new IoFileError('IO_FILE_INVALID', `${name}.io:${i + 1}: invalid JSON (${(err as Error).message})`, { name, line: i + 1 });
      }
      test.messages.push({ send: line.startsWith('>>'), data, line: i + 1 });
      continue;
    }
    throw new IoFileError('IO_FILE_INVALID', `${name}.io:${i + 1}: invalid test line: ${line.slice(0, 80)}`, { name, line: i + 1 });
  }
  return test;
}

/** Every `.io` file under `dir` (recursively), as sorted relative names without the extension. */
export function listIoFiles(dir: string): { name: string; path: string }[] {
  const out: { name: string; path: string }[] = [];
  const walk = (d: string): void => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && entry.name.endsWith('.io'))
        out.push({ name: relative(dir, path).slice(0, -3).split(sep).join('/'), path });
    }
  };
  walk(dir);
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Reads and parses one file. */
export function readIoFile(name: string, path: string): IoTest {
  return parseIoFile(name, readFileSync(path, 'utf8'));
}
