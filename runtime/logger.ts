// JSON-lines logger: one object per line with time, level, msg and fields. Level from LOG_LEVEL
// (debug|info|warn|error, default info). Writes to stderr so stdout stays free for command output.

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

export interface LoggerOptions {
  level?: Level;
  write?: (line: string) => void;
  fields?: Record<string, unknown>;
}

function serializable(v: unknown): unknown {
  return v instanceof Error ? v.message : v;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const envLevel = process.env.LOG_LEVEL as Level | undefined;
  const level = options.level ?? (envLevel && envLevel in ORDER ? envLevel : 'info');
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  const base = options.fields ?? {};
  const log = (l: Level, msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[l] < ORDER[level]) return;
    const entry: Record<string, unknown> = { time: new Date().toISOString(), level: l, msg, ...base };
    for (const [k, v] of Object.entries(fields ?? {})) entry[k] = serializable(v);
    write(`${JSON.stringify(entry)}\n`);
  };
  return {
    debug: (m, f) => log('debug', m, f),
    info: (m, f) => log('info', m, f),
    warn: (m, f) => log('warn', m, f),
    error: (m, f) => log('error', m, f),
    with: (fields) => createLogger({ level, write, fields: { ...base, ...fields } }),
  };
}

/** A logger that drops everything (the SDK's default when the caller passes none). */
export const silentLogger: Logger = {
  debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined,
  with: () => silentLogger,
};
