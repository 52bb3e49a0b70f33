// Logger: one line per entry on stderr (stdout stays free for command output), level from LOG_LEVEL
// (debug|info|warn|error, default info). Two formats: `json` — one object per line with time, level, msg and
// fields (for machines; the default when stderr is not a terminal) — and `text` — `HH:MM:SS.mmm LEVEL msg
// key=value …`, coloured by level on a terminal unless NO_COLOR is set (https://no-color.org).

import { boundedText } from '../../api-types/untrusted-text.js';

export type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /** A logger that adds `fields` to every line. */
  with(fields: Record<string, unknown>): Logger;
}

export type LogFormat = 'json' | 'text';
export const LOG_FORMATS: readonly LogFormat[] = ['json', 'text'];

export interface LoggerOptions {
  level?: Level;
  write?: (line: string) => void;
  fields?: Record<string, unknown>;
  /** Default: text on a terminal, json otherwise. */
  format?: LogFormat;
  /** Colour the level (text format). Default: on a terminal and NO_COLOR unset. */
  color?: boolean;
}

const COLORS: Record<Level, string> = { debug: '\x1b[90m', info: '\x1b[36m', warn: '\x1b[33m', error: '\x1b[31m' };

function textValue(v: unknown): string {
  if (typeof v === 'string') return /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v);
  return JSON.stringify(v) ?? String(v);
}

/** One text line: time, level, message, then the fields as key=value (strings quoted when they need it). */
export function formatTextLine(entry: Record<string, unknown>, color: boolean): string {
  const { time, level, msg, ...fields } = entry as { time: string; level: Level; msg: string };
  const lvl = level.toUpperCase().padEnd(5);
  const kv = Object.entries(fields).map(([k, v]) => `${k}=${textValue(v)}`).join(' ');
  return `${time.slice(11, 23)} ${color ? `${COLORS[level]}${lvl}\x1b[0m` : lvl} ${msg}${kv ? ` ${kv}` : ''}\n`;
}

/** The most characters of one string field kept in a log line (untrusted text is cut shorter where it enters). */
export const MAX_LOG_FIELD_CHARS = 4096;

/** The most characters of a message kept in a log line. */
export const MAX_LOG_MESSAGE_CHARS = 1024;
/** How deep, and how many entries of each array or object, a field value is shown. */
const MAX_FIELD_DEPTH = 4;
const MAX_FIELD_ENTRIES = 100;

/**
 * Errors as their message; every string — at any depth of arrays and objects, keys too — cut and cleaned of
 * control characters (a line never carries a terminal escape or a bidi override, and no value makes it
 * unbounded); arrays and objects cut at MAX_FIELD_ENTRIES entries and MAX_FIELD_DEPTH levels.
 */
function serializable(v: unknown, depth = 0): unknown {
  const value = v instanceof Error ? v.message : v;
  if (typeof value === 'string') return boundedText(value, MAX_LOG_FIELD_CHARS);
  if (typeof value !== 'object' || value === null) return value;
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function' && depth < MAX_FIELD_DEPTH) return serializable(toJSON.call(value), depth + 1);
  if (depth >= MAX_FIELD_DEPTH) return Array.isArray(value) ? `[array of ${value.length}]` : '[object]';
  if (Array.isArray(value)) {
    const shown = value.slice(0, MAX_FIELD_ENTRIES).map((x) => serializable(x, depth + 1));
    return value.length > MAX_FIELD_ENTRIES ? [...shown, `… ${value.length - MAX_FIELD_ENTRIES} more`] : shown;
  }
  const entries = Object.entries(value);
  const shown = entries.slice(0, MAX_FIELD_ENTRIES).map(([k, x]) => [boundedText(k, 128), serializable(x, depth + 1)]);
  if (entries.length > MAX_FIELD_ENTRIES) shown.push(['…', `${entries.length - MAX_FIELD_ENTRIES} more`]);
  return Object.fromEntries(shown);
}

/** The fields of a line as they are written (cleaned and bounded). */
function serializableFields(fields: Record<string, unknown>): Record<string, unknown> {
  return serializable(fields, -1) as Record<string, unknown>;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const envLevel = process.env.LOG_LEVEL as Level | undefined;
  const level = options.level ?? (envLevel && envLevel in ORDER ? envLevel : 'info');
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  const base = serializableFields(options.fields ?? {});
  const tty = options.write === undefined && process.stderr.isTTY === true;
  const format = options.format ?? (tty ? 'text' : 'json');
  const color = options.color ?? (tty && !process.env.NO_COLOR);
  const log = (l: Level, msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[l] < ORDER[level]) return;
    // The message is untrusted text too: code may interpolate what a server said into it.
    const entry: Record<string, unknown> = {
      time: new Date().toISOString(),
      level: l,
      msg: boundedText(msg, MAX_LOG_MESSAGE_CHARS),
      ...base,
    };
    for (const [k, v] of Object.entries(serializableFields(fields ?? {}))) entry[k] = v;
    write(format === 'text' ? formatTextLine(entry, color) : `${JSON.stringify(entry)}\n`);
  };
  return {
    debug: (m, f) => log('debug', m, f),
    info: (m, f) => log('info', m, f),
    warn: (m, f) => log('warn', m, f),
    error: (m, f) => log('error', m, f),
    with: (fields) => createLogger({ level, write, fields: { ...base, ...serializableFields(fields) }, format, color }),
  };
}

/** A logger that drops everything (the SDK's default when the caller passes none). */
export const silentLogger: Logger = {
  debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined,
  with: () => silentLogger,
};
