#!/usr/bin/env node
// The `featuregates` CLI: argument parsing only, then calls into api-types, runtime, controllers,
// sdk and standalone.
import { enableCompileCache } from 'node:module';
import { helpText, parseCommand, UsageError, type CommandSpec } from './args.js';

// V8's code cache on disk (in the temp dir): the commands' modules, loaded below on demand, start ~10% faster
// the second time. Nothing happens when the folder cannot be written (a read-only root filesystem).
enableCompileCache?.();

// Loaded on demand, so `render` does not pay for the Kubernetes client.
const commands: { name: string; summary: string; load: () => Promise<CommandSpec> }[] = [
  { name: 'render', summary: 'print a FeatureGate with its status filled for one payload version (bootstrap path)',
    load: async () => (await import('./render.js')).renderCommand },
  { name: 'operator', summary: 'run the operator: FeatureGate status per version, Upgradeable, ClusterOperator status',
    load: async () => (await import('./operator.js')).operatorCommand },
  { name: 'status', summary: 'show the feature set, whether upgrades are allowed, and the gates per version',
    load: async () => (await import('./status.js')).statusCommand },
  { name: 'standalone', summary: 'single-node mode: check the feature-gate config and lock, or render operand flags',
    load: async () => (await import('./standalone.js')).standaloneCommand },
  { name: 'start', summary: 'run locally: a local control plane (when no cluster is configured) and the operator, until Ctrl-C',
    load: async () => (await import('./start.js')).startCommand },
];

function topHelp(): string {
  return ['Usage: featuregates <command> [options]', '', 'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(12)} ${c.summary}`), '',
    'Run `featuregates <command> --help` for a command\'s options.', ''].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(topHelp());
    return name ? 0 : 2;
  }
  const entry = commands.find((c) => c.name === name);
  if (!entry) {
    process.stderr.write(`featuregates: unknown command ${JSON.stringify(name)}\n\n${topHelp()}`);
    return 2;
  }
  const cmd = await entry.load();
  try {
    const { values, flags, positionals } = parseCommand(cmd, rest);
    if (flags.help) {
      process.stdout.write(helpText(cmd));
      return 0;
    }
    return await cmd.run(values, flags, positionals);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`featuregates ${cmd.name}: ${e.message}\n\n${helpText(cmd)}`);
      return 2;
    }
    process.stderr.write(`featuregates ${cmd.name}: ${(e as Error).message}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
