#!/usr/bin/env node
// The `featuregates` CLI: argument parsing only, then calls into api-types, runtime, controllers,
// sdk and standalone.
import * as nodeModule from 'node:module';
import { closestName } from '../api-types/suggest.js';
import { packageVersion } from '../runtime/util/version.js';
import { helpText, parseCommand, UsageError, type CommandSpec } from './args.js';

// V8's code cache on disk (in the temp dir): the commands' modules, loaded below on demand, start ~10% faster
// the second time. Nothing happens when the folder cannot be written (a read-only root filesystem).
nodeModule.enableCompileCache?.();

// Loaded on demand, so `render` does not pay for the Kubernetes client. The summaries live here only: the top
// help lists them without loading any command, and a command's --help shows its own.
const commands: { name: string; summary: string; load: () => Promise<CommandSpec> }[] = [
  { name: 'render', summary: 'print a FeatureGate with its status filled for one payload version (bootstrap path)',
    load: async () => (await import('./render.js')).renderCommand },
  { name: 'operator', summary: 'run the operator: FeatureGate status per version, Upgradeable, ClusterOperator status',
    load: async () => (await import('./operator.js')).operatorCommand },
  { name: 'hosted', summary: 'run the coordinator of a HyperShift management cluster\'s hosted control planes; hosted status: one line per HCP',
    load: async () => (await import('./hosted.js')).hostedCommand },
  { name: 'status', summary: 'show the feature set, whether upgrades are allowed, and the gates per version',
    load: async () => (await import('./status.js')).statusCommand },
  { name: 'standalone', summary: 'single-node mode: check the feature-gate config and lock, or render operand flags',
    load: async () => (await import('./standalone.js')).standaloneCommand },
  { name: 'start', summary: 'run locally: a local control plane (when no cluster is configured) and the operator, until Ctrl-C',
    load: async () => (await import('./start.js')).startCommand },
  { name: 'verify', summary: 'do the running components have the gates their FeatureGate says? (kube-apiserver, the nodes\' kubelets, --component; exit 1 on a mismatch)',
    load: async () => (await import('./verify.js')).verifyCommand },
  { name: 'explain', summary: 'why a gate is on or off: per feature set and profile of a payload (and which manifest), per version of a cluster',
    load: async () => (await import('./explain.js')).explainCommand },
  { name: 'diff', summary: 'what flips between two payloads or two versions of a cluster\'s status (exit 1 when something does)',
    load: async () => (await import('./diff.js')).diffCommand },
  { name: 'preview', summary: 'what a FeatureGate spec would resolve to for a payload: lists, unknown names, conflicts, irreversibility',
    load: async () => (await import('./preview.js')).previewCommand },
  { name: 'preflight', summary: 'would kube-apiserver, the controller manager, the scheduler and kubelet start with these gates? (Kubernetes\' own rules and the kubelet\'s configuration; exit 1 if not)',
    load: async () => (await import('./preflight.js')).preflightCommand },
  { name: 'manifests', summary: 'which payload manifests the cluster-version operator would apply, skip or reject by feature gate, and why',
    load: async () => (await import('./manifests.js')).manifestsCommand },
  { name: 'simulate', summary: 'write ClusterVersion history as the cluster-version operator does during an upgrade (Partial, then --complete)',
    load: async () => (await import('./simulate.js')).simulateCommand },
  { name: 'gen', summary: 'generate code: gen gate-names --payload-dir D [-o F.ts] (typed gate names for SDK users)',
    load: async () => (await import('./gen.js')).genCommand },
  { name: 'version', summary: 'print the version of this CLI', load: async () => versionCommand },
  { name: 'completion', summary: 'print a shell completion script: featuregates completion bash|zsh', load: async () => completionCommand },
];

const versionCommand: CommandSpec = {
  name: 'version', usage: 'featuregates version', options: {},
  run() {
    process.stdout.write(`featuregates ${packageVersion()} (node ${process.version}, ${process.platform}/${process.arch})\n`);
    return 0;
  },
};

const completionCommand: CommandSpec = {
  name: 'completion', usage: 'featuregates completion bash|zsh', options: {}, positionals: ['bash|zsh'],
  async run(_values, _flags, positionals) {
    const shell = positionals[0];
    if (shell !== 'bash' && shell !== 'zsh') throw new UsageError(`expected bash or zsh, got ${JSON.stringify(shell ?? '')}`);
    const specs = await Promise.all(commands.map((c) => c.load()));
    const { bashCompletion, zshCompletion } = await import('./completion.js');
    process.stdout.write(shell === 'bash' ? bashCompletion(specs) : zshCompletion(specs));
    return 0;
  },
};

function topHelp(): string {
  return ['Usage: featuregates <command> [options]', '', 'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(12)} ${c.summary}`), '',
    'Run `featuregates <command> --help` for a command\'s options; `featuregates --version` for the version.',
    'Exit codes: 0 ok, 1 failure (diff: differences), 2 usage error (diff: failure).', ''].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(topHelp());
    return name ? 0 : 2;
  }
  const entry = commands.find((c) => c.name === (name === '--version' ? 'version' : name));
  if (!entry) {
    // A flag in command position (--verison, --hlep) is matched against the top-level flags.
    const flag = name.startsWith('-');
    const close = flag ? closestName(name.replace(/^-+/, ''), ['help', 'version']) : closestName(name, commands.map((c) => c.name));
    const suggestion = close && (flag ? `--${close}` : close);
    process.stderr.write(`featuregates: unknown ${flag ? 'flag' : 'command'} ${JSON.stringify(name)}` +
      `${suggestion ? ` (did you mean ${JSON.stringify(suggestion)}?)` : ''}\n\n${topHelp()}`);
    return 2;
  }
  const cmd = await entry.load();
  const help = () => helpText(cmd, entry.summary);
  try {
    const { values, flags, positionals, lists } = parseCommand(cmd, rest);
    if (flags.help) {
      process.stdout.write(help());
      return 0;
    }
    return await cmd.run(values, flags, positionals, lists);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`featuregates ${cmd.name}: ${e.message}\n\n${help()}`);
      return 2;
    }
    process.stderr.write(`featuregates ${cmd.name}: ${(e as Error).message}\n`);
    return cmd.errorExitCode ?? 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
