// `featuregates standalone check|render`: the single-node, file-configured mode.
// Exit 0: ok; 1: a check refused the start (also appended to <backup-dir>/prerun_failed.log);
// 2: invalid configuration or usage.
import { readFileSync } from 'node:fs';
import { stringify, parseDocument } from 'yaml';
import { createLogger } from '../runtime/logger.js';
import {
  appendPrerunFailure, InvalidConfigurationError, parseExecVersion, prerun, resolveStandaloneGates,
  standaloneAPIServerArgs, standaloneKubeletConfig,
} from '../standalone/index.js';
import { UsageError, type CommandSpec } from './args.js';

export const DEFAULTS = {
  config: '/etc/microshift/config.yaml',
  configDir: '/etc/microshift/config.d',
  dataDir: '/var/lib/microshift',
  backupDir: '/var/lib/microshift-backups',
};

function readKubeletBase(path: string): Record<string, unknown> {
  const doc = parseDocument(readFileSync(path, 'utf8'));
  if (doc.errors.length) throw new InvalidConfigurationError(`${path}: ${doc.errors[0]?.message.split('\n')[0]}`);
  const v = doc.toJS() as unknown;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new InvalidConfigurationError(`${path}: expected a KubeletConfiguration mapping`);
  return v as Record<string, unknown>;
}

export const standaloneCommand: CommandSpec = {
  name: 'standalone',
  summary: 'single-node mode: check the feature-gate config and lock, or render operand flags',
  usage: 'featuregates standalone check|render --version X.Y.Z [--config F] [--config-dir D] [--data-dir D] [--backup-dir D] [--authoritative-feature-gate-dir D] [--kubelet-config F] [-o yaml|json] [--kubeconfig P]',
  options: {
    version: { type: 'string', help: 'the version of the binaries being started, X.Y.Z (required)' },
    config: { type: 'string', help: `main config file (default ${DEFAULTS.config})` },
    'config-dir': { type: 'string', help: `drop-in folder, every *.yaml recursively in lexical order (default ${DEFAULTS.configDir})` },
    'data-dir': { type: 'string', help: `holds the lock "no-upgrade" and the "version" file (default ${DEFAULTS.dataDir})` },
    'backup-dir': { type: 'string', help: `where prerun_failed.log is appended (default ${DEFAULTS.backupDir})` },
    'authoritative-feature-gate-dir': { type: 'string', help: 'payload manifests; enables TechPreviewNoUpgrade and DevPreviewNoUpgrade' },
    'kubelet-config': { type: 'string', help: 'render: a KubeletConfiguration YAML to merge featureGates into' },
    output: { type: 'string', short: 'o', help: 'render: yaml (default) or json' },
    kubeconfig: { type: 'string', help: 'render: also write FeatureGate/cluster (spec and status) to this API server' },
  },
  async run(values, _flags, positionals) {
    const action = positionals[0];
    if (action !== 'check' && action !== 'render') throw new UsageError(`expected "check" or "render", got ${JSON.stringify(action ?? '')}`);
    if (!values.version) throw new UsageError('--version is required (the version of the binaries being started, X.Y.Z)');
    try {
      parseExecVersion(values.version);
    } catch (e) {
      throw new UsageError(`--version: ${(e as Error).message}`);
    }
    const output = values.output ?? 'yaml';
    if (output !== 'yaml' && output !== 'json') throw new UsageError(`-o must be yaml or json, got ${JSON.stringify(output)}`);
    const logger = createLogger({ fields: { component: 'featuregates-standalone' } });
    const backupDir = values['backup-dir'] ?? DEFAULTS.backupDir;
    try {
      const result = prerun({
        configFile: values.config ?? DEFAULTS.config,
        configDir: values['config-dir'] ?? DEFAULTS.configDir,
        dataDir: values['data-dir'] ?? DEFAULTS.dataDir,
        version: values.version,
        ...(values['authoritative-feature-gate-dir'] ? { featureGateDir: values['authoritative-feature-gate-dir'] } : {}),
        logger,
      });
      if (action === 'check') {
        process.stdout.write(`ok: feature set ${JSON.stringify(result.featureGates.featureSet)}${result.lock ? `, locked at ${result.lock.version}` : ', no lock'}\n`);
        return 0;
      }
      const gates = resolveStandaloneGates(result.featureGates, result.registry);
      const rendered = {
        featureSet: result.featureGates.featureSet,
        kubeAPIServerArgs: standaloneAPIServerArgs(gates),
        kubeletConfig: standaloneKubeletConfig(gates, values['kubelet-config'] ? readKubeletBase(values['kubelet-config']) : undefined),
      };
      logger.info(`setting kube:feature-gates=${rendered.kubeAPIServerArgs.map((a) => a.slice('--feature-gates='.length)).join(',')}`);
      if (values.kubeconfig) {
        const [{ mirrorFeatureGate }, { loadKubeConfig }] = await Promise.all([import('../standalone/mirror.js'), import('../runtime/kube-config.js')]);
        await mirrorFeatureGate(await loadKubeConfig(values.kubeconfig), result.featureGates, values.version, gates);
      }
      process.stdout.write(output === 'json' ? `${JSON.stringify(rendered, null, 2)}\n` : stringify(rendered));
      return 0;
    } catch (e) {
      if (e instanceof InvalidConfigurationError) {
        process.stderr.write(`${e.message}\n`);
        return 2;
      }
      // A check refused the start (PrerunError) or its I/O failed: both are recorded for the administrator.
      const message = (e as Error).message;
      process.stderr.write(`${message}\n`);
      try {
        const log = appendPrerunFailure(backupDir, message);
        process.stderr.write(`(also written to ${log})\n`);
      } catch (w) {
        process.stderr.write(`could not write to ${backupDir}: ${(w as Error).message}\n`);
      }
      return 1;
    }
  },
};
