// Writes the PrometheusRule objects (for the Prometheus operator) from the plain rules files, which are the one
// source of the alerts: deploy/prometheus/rules/operator.rules.yaml → deploy/prometheus/alerts/prometheusrule.yaml,
// deploy/prometheus/rules/hosted.rules.yaml → deploy/prometheus/hosted/prometheusrule.yaml. The Helm chart reads
// the rules files itself. `--check`: write nothing, exit 1 when a written file is not what it would be
// (test/integration/monitoring-install.test.ts runs it).
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const targets = [
  { rules: 'deploy/prometheus/rules/operator.rules.yaml', out: 'deploy/prometheus/alerts/prometheusrule.yaml',
    name: 'featuregate-operator', namespace: 'featuregate-coordinator', app: 'featuregate-operator' },
  { rules: 'deploy/prometheus/rules/hosted.rules.yaml', out: 'deploy/prometheus/hosted/prometheusrule.yaml',
    name: 'featuregate-hosted', namespace: 'featuregate-hosted', app: 'featuregate-hosted' },
];

const check = process.argv.includes('--check');
let stale = 0;
for (const t of targets) {
  const { groups } = parse(readFileSync(join(root, t.rules), 'utf8'));
  const object = {
    apiVersion: 'monitoring.coreos.com/v1', kind: 'PrometheusRule',
    metadata: { name: t.name, namespace: t.namespace, labels: { 'app.kubernetes.io/name': t.app } },
    spec: { groups },
  };
  const text = `# Written by hack/update-alert-rules.mjs from ${relative(dirname(t.out), t.rules)}: edit that file and run\n` +
    `# \`node hack/update-alert-rules.mjs\`, never this one.\n${stringify(object, { lineWidth: 0 })}`;
  const path = join(root, t.out);
  let current = '';
  try { current = readFileSync(path, 'utf8'); } catch { /* not written yet */ }
  if (current === text) continue;
  if (check) {
    process.stderr.write(`${t.out} is not what ${t.rules} gives: run node hack/update-alert-rules.mjs\n`);
    stale++;
  } else {
    writeFileSync(path, text);
    process.stdout.write(`${t.out} from ${t.rules}\n`);
  }
}
process.exit(stale ? 1 : 0);
