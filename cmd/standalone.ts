// `featuregates standalone check|render`: the single-node, file-configured mode.
// Exit 0: ok; 1: a check refused the start (also appended to <backup-dir>/prerun_failed.log);
// 2: invalid configuration or usage.
import { readFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { kubernetesGateRules, parseStrictVersion } from '../api-types/index.js';
import { parseYaml } from '../runtime/util/yaml.js';
import { createLogger, type Logger } from '../runtime/log/logger.js';
import {
  appendPrerunFailure, InvalidConfigurationError, prerun, PrerunError, resolveStandaloneGates,
  kubeletOverrides, standaloneAPIServerArgs, standaloneKubeletConfig, type PrerunResult,
} from '../standalone/index.js';
import { UsageError, type CommandSpec, LOG_FORMAT_OPTION, logFormatOption, outputFlag } from './args.js';

export const DEFAULTS = {
  config: '/etc/microshift/config.yaml',
  configDir: '/etc/microshift/config.d',
  dataDir: '/var/lib/microshift',
  backupDir: '/var/lib/microshift-backups',
};

function readKubeletBase(path: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = parseYaml(readFileSync(path, 'utf8'), path, { version: '1.1' }); // the kubelet reads it as go-yaml v2 does
  } catch (e) {
    throw new InvalidConfigurationError((e as Error).message);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new InvalidConfigurationError(`${path}: expected a KubeletConfiguration mapping`);
  return v as Record<string, unknown>;
}

/** What `check --dry-run` prints: the writes a real start would make, and the verdict. */
function dryRunReport(r: PrerunResult): string {
  const out = [`dry run: every check passed; nothing was written.`, ''];
  out.push(`configuration: ${r.configFiles.length ? r.configFiles.join(', ') : '(no files)'}; feature gates set in: ${r.gateSources.length ? r.gateSources.join(', ') : '(none)'}`);
  if (r.writes.lock) {
    out.push(`a real start would CREATE THE LOCK ${r.writes.lock.path} — permanent: this data can then never leave feature set ` +
      `${JSON.stringify(r.featureGates.featureSet)} nor change minor version with these gates. Its content:`);
    out.push(...r.writes.lock.content.trimEnd().split('\n').map((l) => `    ${l}`));
  } else if (r.lock) {
    out.push(`lock: already present (feature set ${JSON.stringify(r.lock.featureSet)}, created by ${r.lock.version}); it is never rewritten`);
  } else {
    out.push('lock: none, and none would be created (no feature set configured)');
  }
  const v = r.writes.version;
  out.push(`a real start would write ${v.path}: version ${v.version}${v.featureGateLock ? `, under the lock (${v.featureGateLock})` : ''}`);
  out.push('', 'verdict: this start would be allowed', '');
  return out.join('\n');
}

/** What a real `check` wrote, on stdout: the lock (if it made it — a permanent choice) and the version file. */
function commitReport(r: PrerunResult): string {
  const out: string[] = [];
  if (r.writes.lock) {
    out.push(`wrote the lock ${r.writes.lock.path} (permanent: feature set ${JSON.stringify(r.featureGates.featureSet)} can never be left, ` +
      'and minor or major version changes are refused while these gates are set)');
  } else if (r.lock) {
    out.push(`lock present (feature set ${JSON.stringify(r.lock.featureSet)}, created by ${r.lock.version}): checked, never rewritten`);
  }
  const v = r.writes.version;
  out.push(`wrote ${v.path}: ${v.version}${v.featureGateLock ? ` (under the lock: ${v.featureGateLock})` : ''}`);
  out.push(`ok: feature set ${JSON.stringify(r.featureGates.featureSet)}${r.lock ? `, locked at ${r.lock.version}` : ', no lock'}`);
  return `${out.join('\n')}\n`;
}

export const standaloneCommand: CommandSpec = {
  name: 'standalone',
  usage: 'featuregates standalone check|render --version X.Y.Z [--kubernetes-version X.Y] [--dry-run] [--config F] [--config-dir D] [--data-dir D] [--backup-dir D] [--authoritative-feature-gate-dir D] [--kubelet-config F] [-o yaml|json] [--kubeconfig P]',
  positionals: ['check|render'],
  options: {
    'log-format': LOG_FORMAT_OPTION,
    'dry-run': { type: 'boolean', help: 'check: run every check and write nothing; print what would be written (lock, version file) and the verdict. Run this first. (render never writes)' },
    version: { type: 'string', help: 'the version of the binaries being started, X.Y.Z (required)' },
    'kubernetes-version': { type: 'string', help: 'their Kubernetes minor, X.Y, for the check that kube-apiserver starts with the gates (default: the version\'s, when known)' },
    config: { type: 'string', help: `main config file (default ${DEFAULTS.config}; a given one must exist)` },
    'config-dir': { type: 'string', help: `drop-in folder, every *.yaml recursively in lexical order, symlinked files read, symlinked folders not (default ${DEFAULTS.configDir}; a given one must exist)` },
    'data-dir': { type: 'string', help: `holds the lock "no-upgrade" and the "version" file (default ${DEFAULTS.dataDir})` },
    'backup-dir': { type: 'string', help: `where prerun_failed.log is appended (default ${DEFAULTS.backupDir})` },
    'authoritative-feature-gate-dir': { type: 'string', help: 'payload manifests; enables TechPreviewNoUpgrade and DevPreviewNoUpgrade' },
    'kubelet-config': { type: 'string', help: 'the node\'s KubeletConfiguration YAML: check and render refuse gates the kubelet would refuse with it; render merges featureGates into it' },
    output: { type: 'string', short: 'o', help: 'render: yaml (default) or json' },
    kubeconfig: { type: 'string', help: 'render: also write FeatureGate/cluster (spec and status) to this API server' },
  },
  async run(values, flags, positionals) {
    const action = positionals[0];
    if (action !== 'check' && action !== 'render') throw new UsageError(`expected "check" or "render", got ${JSON.stringify(action ?? '')}`);
    // render only prints: it runs every check as a dry run and writes nothing (--dry-run changes nothing for
    // it); check is the one command that commits the lock and the version file.
    const dryRun = flags['dry-run'] === true || action === 'render';
    const version = versionFlags(values);
    const output = outputFlag(values.output, ['yaml', 'json']);
    const logger = createLogger({ fields: { component: 'featuregates-standalone' }, ...logFormatOption(values['log-format']) });
    const backupDir = values['backup-dir'] ?? DEFAULTS.backupDir;
    try {
      const kubeletBase = values['kubelet-config'] ? readKubeletBase(values['kubelet-config']) : undefined;
      const result = prerun({
        configFile: values.config ?? DEFAULTS.config,
        configDir: values['config-dir'] ?? DEFAULTS.configDir,
        ...(values.config !== undefined ? { explicitConfigFile: true } : {}),
        ...(values['config-dir'] !== undefined ? { explicitConfigDir: true } : {}),
        dryRun,
        dataDir: values['data-dir'] ?? DEFAULTS.dataDir,
        version,
        ...(values['authoritative-feature-gate-dir'] ? { featureGateDir: values['authoritative-feature-gate-dir'] } : {}),
        ...(values['kubernetes-version'] ? { kubernetesVersion: values['kubernetes-version'] } : {}),
        ...(kubeletBase ? { kubeletConfiguration: kubeletBase } : {}),
        logger,
      });
      for (const w of result.warnings) process.stderr.write(`warning: ${w}\n`);
      if (action === 'check') {
        if (dryRun) process.stdout.write(dryRunReport(result));
        else process.stdout.write(commitReport(result));
        return 0;
      }
      return await render(values, { version, result, kubeletBase, output, logger });
    } catch (e) {
      return refused(e, { action, dryRun, backupDir, logger });
    }
  },
};

/** --version (X.Y.Z, required) and --kubernetes-version (a minor the gate rules know), as usage errors. */
function versionFlags(values: Record<string, string | undefined>): string {
  if (!values.version) throw new UsageError('--version is required (the version of the binaries being started, X.Y.Z)');
  try {
    parseStrictVersion(values.version);
  } catch (e) {
    throw new UsageError(`--version: ${(e as Error).message}`);
  }
  if (values['kubernetes-version'] !== undefined) {
    try {
      kubernetesGateRules(values['kubernetes-version']);
    } catch (e) {
      throw new UsageError(`--kubernetes-version: ${(e as Error).message}`);
    }
  }
  return values.version;
}

/** render: the kube-apiserver flags and the kubelet configuration for the gates (and FeatureGate/cluster mirrored with --kubeconfig). */
async function render(values: Record<string, string | undefined>, r: {
  version: string; result: PrerunResult; kubeletBase: Record<string, unknown> | undefined; output: string; logger: Logger;
}): Promise<number> {
  const { version, result, kubeletBase, output, logger } = r;
  if (result.writes.lock) {
    process.stderr.write(`render wrote nothing: the lock ${result.writes.lock.path} does not exist yet; \`featuregates standalone check\` ` +
      `(without --dry-run) creates it, permanently, before the operands start with these gates\n`);
  }
  const gates = resolveStandaloneGates(result.featureGates, result.registry);
  for (const o of kubeletOverrides(gates, kubeletBase)) {
    process.stderr.write(`warning: ${values['kubelet-config']} sets featureGates.${o.name}: ${o.kubelet}, which overrides ${o.name}=${o.apiServer} ` +
      'from apiServer.featureGates for the kubelet (the kubelet\'s own setting wins, as in MicroShift)\n');
  }
  const rendered = {
    featureSet: result.featureGates.featureSet,
    kubeAPIServerArgs: standaloneAPIServerArgs(gates),
    kubeletConfig: standaloneKubeletConfig(gates, kubeletBase),
  };
  logger.info(`setting kube:feature-gates=${rendered.kubeAPIServerArgs.map((a) => a.slice('--feature-gates='.length)).join(',')}`);
  if (values.kubeconfig) {
    const [{ mirrorFeatureGate }, { loadKubeConfig }] = await Promise.all([import('../standalone/mirror.js'), import('../runtime/rest/kube-config.js')]);
    await mirrorFeatureGate(await loadKubeConfig(values.kubeconfig), result.featureGates, version, gates);
  }
  process.stdout.write(output === 'json' ? `${JSON.stringify(rendered, null, 2)}\n` : stringify(rendered));
  return 0;
}

/**
 * A check refused the start (PrerunError) or its I/O failed. The log (stderr) has it once, in the chosen format;
 * `check`'s report — the full message and the verdict — is on stdout, allowed or refused; `render` keeps stdout for
 * the flags and only adds the verdict to the log. A bad configuration is a usage error (exit 2).
 */
function refused(e: unknown, r: { action: 'check' | 'render'; dryRun: boolean; backupDir: string; logger: Logger }): number {
  const { action, dryRun, backupDir, logger } = r;
  if (e instanceof InvalidConfigurationError) {
    process.stderr.write(`${e.message}\n`);
    return 2;
  }
  // A check refused the start (PrerunError) or its I/O failed. The log (stderr) has it once, in the
  // chosen format; `check`'s report — the full message and the verdict — is on stdout, allowed or refused;
  // `render` keeps stdout for the flags and only adds the verdict to the log.
  const message = (e as Error).message;
  if (action === 'render') {
    if (!(e instanceof PrerunError)) logger.error(message); // a refusal is in the log already (prerun's FAIL line)
    logger.error('verdict: this start would be refused (render: nothing written)');
    return 1;
  }
  if (dryRun) {
    process.stdout.write(`dry run: a check refused this start; nothing was written.\n\n${message}\n\nverdict: this start would be refused (dry run: nothing written)\n`);
    return 1;
  }
  process.stdout.write(`${message}\n\nverdict: this start is refused\n`);
  try {
    const log = appendPrerunFailure(backupDir, message);
    process.stdout.write(`(also written to ${log})\n`);
  } catch (w) {
    logger.error(`could not write to ${backupDir}: ${(w as Error).message}`);
  }
  return 1;
}
