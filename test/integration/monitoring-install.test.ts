// The alerts and dashboards as users install them: the PrometheusRule objects are what the plain rules files give
// (hack/update-alert-rules.mjs --check); kustomize (the operator's alerts Component beside its ServiceMonitor, the
// hosted Component with its ServiceMonitor) and the Helm charts (metrics.prometheusRule, metrics.dashboard) render
// them with the rules file's groups and the dashboard file as they are, opt-in only; and a real kube-apiserver with
// the Prometheus operator's own CRDs (hack/promtool/prometheus-operator-crds.sh, from its Go module) accepts every
// PrometheusRule and ServiceMonitor we ship. promtool's checks of the rules themselves: operator-alerts.test.ts, hosted-alerts.test.ts.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { resolveBinaries, startControlPlane, type ControlPlane } from '../../sdk/testing/index.js';
import { tempDirs } from '../support/temp.js';

const CHART = join(process.cwd(), 'deploy', 'helm', 'featuregate-coordinator');
const helm = execFileSync('bash', [join('hack', 'helm', 'build.sh')], { encoding: 'utf8' }).trim();
const crds = execFileSync('bash', [join('hack', 'promtool', 'prometheus-operator-crds.sh')], { encoding: 'utf8' }).trim();
const kubectl = resolveBinaries().kubectl!;
const tempDir = tempDirs();

interface Obj {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: { groups?: unknown };
  data?: Record<string, string>;
}
const objects = (yaml: string) => parseAllDocuments(yaml).map((d) => d.toJS() as Obj).filter((o) => o && o.kind);
const rulesOf = (file: string) => (parse(readFileSync(join('deploy', 'prometheus', 'rules', file), 'utf8')) as { groups: unknown }).groups;
const template = (...args: string[]) => objects(execFileSync(helm, ['template', 'fgc', CHART, '-n', 'monitoring-test', ...args], { encoding: 'utf8' }));
const ofKind = (objs: Obj[], ...kinds: string[]) => objs.filter((o) => kinds.includes(o.kind));

/** `kubectl kustomize` of an overlay made of `resources` and `components` (folders of this repository). */
function kustomize(resources: string[], components: string[]): Obj[] {
  const dir = tempDir('fgc-kustomize-');
  writeFileSync(join(dir, 'kustomization.yaml'), stringify({
    apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization',
    resources: resources.map((r) => relative(dir, resolve(r))), components: components.map((c) => relative(dir, resolve(c))),
  }));
  return objects(execFileSync(kubectl, ['kustomize', dir], { encoding: 'utf8' }));
}

describe('runbooks', () => {
  const alerts = ['operator.rules.yaml', 'hosted.rules.yaml'].flatMap((f) =>
    (rulesOf(f) as { rules: { alert?: string; labels: { severity: string }; annotations: { runbook_url: string } }[] }[])
      .flatMap((g) => g.rules)
      .filter((r): r is typeof r & { alert: string } => r.alert !== undefined),
  ); // recording rules have no runbook
  it.each(alerts.map((a) => [a.alert, a] as const))('%s: its runbook_url is its page in docs/runbooks, with every section', (name, a) => {
    expect(a.annotations.runbook_url).toBe(`https://github.com/featuregate-coordinator/featuregate-coordinator/blob/main/docs/runbooks/${name}.md`);
    const page = readFileSync(join('docs', 'runbooks', `${name}.md`), 'utf8');
    expect(page.startsWith(`# ${name}\n`)).toBe(true);
    expect(page).toContain(`**Severity:** ${a.labels.severity}`);
    for (const section of ['## Meaning', '## Impact', '## Diagnosis', '## Mitigation']) expect(page).toContain(`\n${section}\n`);
    expect(readFileSync(join('docs', 'runbooks', 'README.md'), 'utf8')).toContain(`| [${name}](${name}.md) | ${a.labels.severity} |`);
  });
});

describe('monitoring as installed', () => {
  let plane: ControlPlane;
  beforeAll(async () => {
    plane = await startControlPlane({ crdPaths: ['prometheusrules', 'servicemonitors'].map((r) => join(crds, `monitoring.coreos.com_${r}.yaml`)) });
  }, 90_000);
  afterAll(async () => { await plane?.stop(); });

  const apply = (objs: Obj[]) => {
    const r = spawnSync(kubectl, ['--kubeconfig', plane.kubeconfigPath, 'apply', '--server-side', '-f', '-'], { input: objs.map((o) => stringify(o)).join('---\n'), encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    return r.stdout;
  };
  const namespace = (name: string) => spawnSync(kubectl, ['--kubeconfig', plane.kubeconfigPath, 'create', 'namespace', name], { encoding: 'utf8' });

  it('the PrometheusRule files are what the rules files give', () => {
    const r = spawnSync(process.execPath, [join('hack', 'update-alert-rules.mjs'), '--check'], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('kustomize: the operator\'s alerts Component and the hosted Component, accepted by the Prometheus operator\'s CRDs', () => {
    const operator = ofKind(kustomize(['deploy/overlays/vanilla'], ['deploy/prometheus', 'deploy/prometheus/alerts']), 'PrometheusRule', 'ServiceMonitor');
    expect(operator.map((o) => `${o.kind}/${o.metadata.namespace}/${o.metadata.name}`).sort())
      .toEqual(['PrometheusRule/featuregate-coordinator/featuregate-operator', 'ServiceMonitor/featuregate-coordinator/featuregate-operator']);
    expect(ofKind(operator, 'PrometheusRule')[0]!.spec!.groups).toEqual(rulesOf('operator.rules.yaml'));
    const hosted = ofKind(kustomize(['deploy/hosted'], ['deploy/prometheus/hosted']), 'PrometheusRule', 'ServiceMonitor');
    expect(hosted.map((o) => `${o.kind}/${o.metadata.namespace}/${o.metadata.name}`).sort())
      .toEqual(['PrometheusRule/featuregate-hosted/featuregate-hosted', 'ServiceMonitor/featuregate-hosted/featuregate-hosted']);
    expect(ofKind(hosted, 'PrometheusRule')[0]!.spec!.groups).toEqual(rulesOf('hosted.rules.yaml'));
    // Without the Components: neither.
    expect(ofKind(kustomize(['deploy/overlays/vanilla'], []), 'PrometheusRule', 'ServiceMonitor')).toEqual([]);

    namespace('featuregate-coordinator');
    namespace('featuregate-hosted');
    const out = apply([...operator, ...hosted]);
    expect(out).toContain('prometheusrule.monitoring.coreos.com/featuregate-operator serverside-applied');
    expect(out).toContain('prometheusrule.monitoring.coreos.com/featuregate-hosted serverside-applied');
  });

  it('Helm: metrics.prometheusRule and metrics.dashboard render the rules file and the dashboard as they are (off by default)', () => {
    expect(ofKind(template(), 'PrometheusRule')).toEqual([]);
    expect(template().filter((o) => o.metadata.labels?.grafana_dashboard)).toEqual([]);
    const objs = template('--set', 'metrics.prometheusRule=true', '--set', 'metrics.dashboard=true', '--set', 'metrics.serviceMonitor=true');
    const [rule] = ofKind(objs, 'PrometheusRule');
    expect(rule!.metadata.namespace).toBe('monitoring-test');
    expect(rule!.spec!.groups).toEqual(rulesOf('operator.rules.yaml'));
    const [dashboard] = objs.filter((o) => o.metadata.labels?.grafana_dashboard === '1');
    expect(dashboard!.data!['featuregates-operator.json']).toBe(readFileSync(join('deploy', 'prometheus', 'dashboards', 'featuregates-operator.json'), 'utf8'));
    namespace('monitoring-test');
    expect(apply([rule!, ...ofKind(objs, 'ServiceMonitor')])).toContain('prometheusrule.monitoring.coreos.com/featuregate-operator serverside-applied');

    // The hosted coordinator's chart: its fleet rules and dashboard.
    const hosted = objects(execFileSync(helm, ['template', 'fgh', join(process.cwd(), 'deploy', 'helm', 'featuregate-hosted'), '-n', 'monitoring-test',
      '--set', 'metrics.prometheusRule=true', '--set', 'metrics.dashboard=true', '--set', 'metrics.serviceMonitor=true'], { encoding: 'utf8' }));
    const [hostedRule] = ofKind(hosted, 'PrometheusRule');
    expect(hostedRule!.spec!.groups).toEqual(rulesOf('hosted.rules.yaml'));
    expect(hosted.find((o) => o.metadata.labels?.grafana_dashboard === '1')!.data!['featuregates-hosted.json'])
      .toBe(readFileSync(join('deploy', 'prometheus', 'dashboards', 'featuregates-hosted.json'), 'utf8'));
    expect(apply([hostedRule!, ...ofKind(hosted, 'ServiceMonitor')])).toContain('prometheusrule.monitoring.coreos.com/featuregate-hosted serverside-applied');
  });
});
