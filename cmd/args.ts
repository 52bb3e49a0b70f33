// Argument parsing for the `featuregates` CLI: node:util parseArgs, strict, with generated --help.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { LOG_FORMATS, type LogFormat } from '../runtime/log/logger.js';
import { ALL_CLUSTER_PROFILES, ETCD_COMPONENT, CLUSTER_PROFILE_ALIASES, closestName, didYouMean, parsePayloadVersion, type ClusterProfile } from '../api-types/index.js';

export class UsageError extends Error {
  override name = 'UsageError';
}

export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  help: string;
  /** A string option that may be given more than once (its values reach run() in `lists`, in order). */
  multiple?: boolean;
  /** Its value is a secret: /flagz shows `CLASSIFIED` instead (as Kubernetes components mark such flags). */
  classified?: boolean;
}

export interface CommandSpec {
  name: string;
  usage: string;
  options: Record<string, OptionSpec>;
  /** Names of the positional arguments it takes, in order (none when absent); more is a usage error. */
  positionals?: string[];
  /** Exit code when run() throws (default 1; `diff` uses 2, as diff(1), since 1 means "differences"). */
  errorExitCode?: number;
  /** Returns the exit code (or a promise of it). */
  run(
    values: Record<string, string | undefined>,
    flags: Record<string, boolean>,
    positionals: string[],
    lists: Record<string, string[]>,
  ): number | Promise<number>;
}

export function helpText(cmd: CommandSpec, summary: string): string {
  const lines = [`Usage: ${cmd.usage}`, '', summary, '', 'Options:'];
  for (const [name, o] of Object.entries(cmd.options)) {
    const flag = `${o.short ? `-${o.short}, ` : '    '}--${name}${o.type === 'string' ? ' VALUE' : ''}`;
    lines.push(`  ${flag.padEnd(44)} ${o.help}${o.multiple ? ' (repeatable)' : ''}`);
  }
  lines.push(`  ${'    --help'.padEnd(44)} show this help`);
  return `${lines.join('\n')}\n`;
}

export function parseCommand(cmd: CommandSpec, argv: string[]) {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> = { help: { type: 'boolean', short: 'h' } };
  for (const [name, o] of Object.entries(cmd.options))
    options[name] = { type: o.type, ...(o.short ? { short: o.short } : {}), ...(o.multiple ? { multiple: true } : {}) };
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, strict: true, allowPositionals: true });
  } catch (e) {
    const message = (e as Error).message;
    const unknown = /^Unknown option '(--?[^']+)'/.exec(message)?.[1];
    if (unknown) {
      const name = unknown.replace(/^--?/, '').split('=')[0]!;
      const close = closestName(name, Object.keys(options));
      throw new UsageError(`unknown flag ${unknown}${close ? ` (did you mean --${close}?)` : ''}`);
    }
    throw new UsageError(message.split('\n')[0]!.replace(/\. To specify a positional argument.*$/, ''));
  }
  const allowed = cmd.positionals ?? [];
  if (parsed.positionals.length > allowed.length) {
    const extra = parsed.positionals.slice(allowed.length);
    throw new UsageError(`unexpected argument${extra.length > 1 ? 's' : ''} ${extra.map((x) => JSON.stringify(x)).join(' ')}` +
      (allowed.length ? ` (takes ${allowed.join(' ')})` : ' (takes no arguments)'));
  }
  const values: Record<string, string | undefined> = {};
  const flags: Record<string, boolean> = {};
  const lists: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(parsed.values)) {
    if (typeof v === 'boolean') flags[k] = v;
    else if (typeof v === 'string') values[k] = v;
    else if (Array.isArray(v)) lists[k] = v.filter((x): x is string => typeof x === 'string');
  }
  return { values, flags, positionals: parsed.positionals, lists };
}

/**
 * The command's flags as /flagz shows them: every declared flag, given or not — a string as given ("" when not
 * given: its default applies, which --help says), a boolean true/false, a repeatable one `[a,b]` (pflag's
 * string slices) — and `CLASSIFIED` for a secret.
 */
export function flagzFlags(
  cmd: CommandSpec,
  values: Record<string, string | undefined>,
  flags: Record<string, boolean>,
  lists: Record<string, string[]>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, o] of Object.entries(cmd.options)) {
    const shown =
      o.type === 'boolean' ? String(flags[name] === true) : o.multiple ? `[${(lists[name] ?? []).join(',')}]` : (values[name] ?? '');
    out[name] = o.classified && shown !== '' && shown !== '[]' ? 'CLASSIFIED' : shown;
  }
  return out;
}

/** "2m", "30s", "1500ms" or a number of seconds. */
export function parseDuration(v: string, flag: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(v.trim());
  if (!m) throw new UsageError(`${flag}: expected a duration such as 2m, 30s or 500ms, got ${JSON.stringify(v)}`);
  const n = Number(m[1]);
  return n * ({ ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] ?? 's'] as number);
}

export function clusterProfileFlag(v: string | undefined): ClusterProfile | undefined {
  if (v === undefined) return undefined;
  const alias = CLUSTER_PROFILE_ALIASES[v];
  if (alias) return alias;
  if (!(ALL_CLUSTER_PROFILES as readonly string[]).includes(v)) {
    throw new UsageError(`--cluster-profile must be one of ${ALL_CLUSTER_PROFILES.join(', ')}, got ${JSON.stringify(v)}`);
  }
  return v as ClusterProfile;
}

/** kubectl's --request-timeout: "0" means no timeout; default here 15s so a dead server fails fast. */
export const REQUEST_TIMEOUT_OPTION: OptionSpec = {
  type: 'string', help: 'give up on a request to the API server after this long, e.g. 10s or 1m; 0 waits forever (default 15s)',
};
export const DEFAULT_CLI_REQUEST_TIMEOUT_MS = 15_000;

/** Where connect() looks when --kubeconfig is not given, for the commands' help. */
export const CLUSTER_SEARCH_HELP = '$KUBECONFIG, then a running `featuregates start`\'s local cluster, then in-cluster';

/** Where the CLI's reads say which cluster they chose (connect's notes): stderr, so -o json stays clean. */
export const sayOnStderr = (line: string): void => { process.stderr.write(`${line}\n`); };

export function requestTimeoutFlag(v: string | undefined): number {
  if (v === undefined) return DEFAULT_CLI_REQUEST_TIMEOUT_MS;
  const ms = parseDuration(v, '--request-timeout');
  return ms === 0 ? Infinity : ms;
}

/** A flag that takes one of `allowed` (the first is the default), with a "did you mean" when it is not. */
export function choiceFlag<T extends string>(flag: string, v: string | undefined, allowed: readonly T[], say = `one of ${allowed.join(', ')}`): T {
  if (v === undefined) return allowed[0]!;
  if (!(allowed as readonly string[]).includes(v)) throw new UsageError(`${flag} must be ${say}, got ${JSON.stringify(v)}${didYouMean(v, allowed)}`);
  return v as T;
}

/** -o: one of `allowed` (the first is the default). */
export function outputFlag<T extends string>(v: string | undefined, allowed: readonly T[]): T {
  return choiceFlag('-o', v, allowed);
}

/** A payload version flag, checked as the operator parses it (usage error otherwise). */
export function payloadVersionFlag(v: string | undefined, flag: string): string | undefined {
  if (v === undefined) return undefined;
  try {
    parsePayloadVersion(v);
  } catch (e) {
    throw new UsageError(`${flag}: ${(e as Error).message}`);
  }
  return v;
}

/** A version as the cluster-version operator records it: X.Y.Z, maybe with a pre-release or build suffix — never "4.24". */
export function fullVersionFlag(v: string | undefined, flag: string): string | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+\.\d+\.\d+([-+][0-9A-Za-z.+-]+)?$/.test(v)) {
    throw new UsageError(`${flag}: expected a full payload version X.Y.Z (e.g. 4.24.0), got ${JSON.stringify(v)}`);
  }
  return payloadVersionFlag(v, flag);
}

export const LOG_FORMAT_OPTION: OptionSpec = {
  type: 'string', help: 'log lines as json or text (default: text on a terminal, coloured unless NO_COLOR is set; json otherwise)',
};

/**
 * The options of a command that runs the operator (`operator`, `start`): the cluster, this payload's version and its
 * manifests; `without` says what the command does when each is not given.
 */
export function operatorRunOptions(without: { kubeconfig: string; version: string; dir: string }): Record<string, OptionSpec> {
  return {
    'log-format': LOG_FORMAT_OPTION,
    kubeconfig: { type: 'string', help: without.kubeconfig },
    'operator-version': { type: 'string', help: `this payload's version (default: ${without.version})` },
    'authoritative-feature-gate-dir': { type: 'string', help: `folder of payload FeatureGate manifests (${without.dir})` },
  };
}

export function logFormatFlag(v: string | undefined): LogFormat | undefined {
  return v === undefined ? undefined : choiceFlag('--log-format', v, LOG_FORMATS, 'json or text');
}

/** createLogger options for --log-format. */
export function logFormatOption(v: string | undefined): { format?: LogFormat } {
  const format = logFormatFlag(v);
  return format ? { format } : {};
}

/** A duration flag with a default. */
export function durationFlag(v: string | undefined, flag: string, fallback: number): number {
  return v === undefined ? fallback : parseDuration(v, flag);
}

/** `--component NAME=URL` values → name → https URL (a usage error names a malformed or repeated one). */
export function componentsFlag(values: readonly string[], flag = '--component', o: { etcd?: boolean } = {}): Map<string, string> {
  const out = new Map<string, string>();
  for (const v of values) {
    const m = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)=(.+)$/.exec(v.trim());
    if (!m) throw new UsageError(`${flag}: expected NAME=URL (e.g. kube-scheduler=https://127.0.0.1:10259), got ${JSON.stringify(v)}`);
    const [, name, , url] = m as unknown as [string, string, string, string];
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new UsageError(`${flag} ${name}: ${JSON.stringify(url)} is not a URL`);
    }
    if (name === ETCD_COMPONENT && !o.etcd) throw new UsageError(`${flag} etcd: etcd's own gates are checked by \`featuregates verify --component etcd=URL\` only`);
    // The kubeconfig's credentials go to it: never in clear text. etcd gets none of them (only --etcd-certfile's
    // client certificate), so a plain http etcd on loopback may be read.
    if (parsed.protocol !== 'https:' && !(name === ETCD_COMPONENT && parsed.protocol === 'http:')) {
      throw new UsageError(`${flag} ${name}: ${url} is not https (the kubeconfig's credentials are sent to it)`);
    }
    if (name === 'kube-apiserver' || out.has(name)) throw new UsageError(`${flag} ${name}: named twice (kube-apiserver is always the kubeconfig's server)`);
    out.set(name, parsed.href.replace(/\/$/, ''));
  }
  return out;
}

/** A PEM bundle of the CAs that sign the components' serving certificates. */
export function componentCA(file: string, flag = '--component-ca-file'): Buffer {
  return pemFile(file, flag, 'CERTIFICATE');
}

/** A PEM file holding at least one `what` (CERTIFICATE, or PRIVATE KEY of any algorithm); a usage error says which flag and why not. */
export function pemFile(file: string, flag: string, what: 'CERTIFICATE' | 'PRIVATE KEY'): Buffer {
  let pem: Buffer;
  try {
    pem = readFileSync(file);
  } catch (e) {
    throw new UsageError(`${flag} ${file}: ${(e as Error).message}`);
  }
  const found = what === 'CERTIFICATE' ? pem.includes('-----BEGIN CERTIFICATE-----') : /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem.toString('latin1'));
  if (!found) throw new UsageError(`${flag} ${file}: no PEM ${what === 'CERTIFICATE' ? 'certificate' : 'private key'} in it`);
  return pem;
}

/** `A=false,B=true` → the declared overrides (a usage error names a malformed one). */
export function overridesFlag(v: string | undefined, flag = '--override'): Map<string, boolean> {
  const out = new Map<string, boolean>();
  for (const pair of (v ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^([A-Za-z0-9]+)=(true|false)$/.exec(pair);
    if (!m) throw new UsageError(`${flag}: expected GATE=true|false, got ${JSON.stringify(pair)}`);
    out.set(m[1]!, m[2] === 'true');
  }
  return out;
}
