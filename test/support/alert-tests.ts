// What the alert tests share (test/integration/operator-alerts.test.ts, hosted-alerts.test.ts): Prometheus's own
// promtool (hack/promtool/build.sh builds it from the github.com/prometheus/prometheus Go module), scrapes of real
// processes, `promtool test rules` over series made from them (test/support/alert-series.ts), the dashboards'
// queries checked, and the operator's ServiceAccount with deploy/base's RBAC.
import { expect } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { exposedSamples, type ExposedSample } from '../../api-types/index.js';
import { KubeTransport, readKubeconfigFile } from '../../runtime/index.js';
import { ensureNamespace, serviceAccountKubeConfig, type ControlPlane } from '../../sdk/testing/index.js';
import { dashboardQueries, inputSeries, metricNames, metricNamesIn, type Phase } from './alert-series.js';
import { tempDirs } from './temp.js';

export const promtool = execFileSync('bash', [join('hack', 'promtool', 'build.sh')], { encoding: 'utf8' }).trim();
export const OPERATOR_RULES = join('deploy', 'prometheus', 'rules', 'operator.rules.yaml');
export const HOSTED_RULES = join('deploy', 'prometheus', 'rules', 'hosted.rules.yaml');
export const runbook = (alert: string) => `https://github.com/featuregate-coordinator/featuregate-coordinator/blob/main/docs/runbooks/${alert}.md`;
const tempDir = tempDirs();

export interface Scrape { atMs: number; samples: ExposedSample[] }
export async function scrape(url: string): Promise<Scrape> {
  const atMs = Date.now();
  const res = await fetch(url);
  if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
  return { atMs, samples: exposedSamples(await res.text()) };
}
export const value = (s: Scrape, name: string, labels: Record<string, string> = {}) =>
  s.samples.find((x) => x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v))?.value;

export interface ExpectedAlert { exp_labels: Record<string, string>; exp_annotations: Record<string, string> }
export interface AlertTest { eval_time: string; alertname: string; exp_alerts: ExpectedAlert[] }
/** A recording rule's (or any expression's) result at a time: promtool's promql_expr_test. */
export interface ExprTest { expr: string; eval_time: string; exp_samples: { labels: string; value: number }[] }
export const silent = (alertname: string, ...minutes: number[]): AlertTest[] => minutes.map((m) => ({ eval_time: `${m}m`, alertname, exp_alerts: [] }));
export const firing = (alertname: string, minute: number, ...alerts: ExpectedAlert[]): AlertTest => ({ eval_time: `${minute}m`, alertname, exp_alerts: alerts });

/** `promtool test rules` on `phases`; throws with promtool's own report (and the test file kept) on a failure. */
export function promtoolTest(rules: string, phases: Phase[], tests: AlertTest[], exprTests: ExprTest[] = []): void {
  const names = metricNamesIn(readFileSync(rules, 'utf8'));
  const file = join(tempDir('fgc-alerts-'), 'test.yaml');
  writeFileSync(file, stringify({
    rule_files: [resolve(rules)], evaluation_interval: '1m',
    tests: [{ interval: '1m', input_series: inputSeries(phases, (n) => names.has(n)), alert_rule_test: tests, promql_expr_test: exprTests }],
  }, { lineWidth: 0 }));
  const r = spawnSync(promtool, ['test', 'rules', file], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`promtool test rules ${file}: exit ${r.status}\n${r.stdout}${r.stderr}`);
}

/** Every rule's metric names are among the names the scrapes hold. */
export function expectExported(rules: string, scrapes: Scrape[]): void {
  const exported = new Set(scrapes.flatMap((s) => s.samples.map((x) => x.name)));
  expect([...metricNamesIn(readFileSync(rules, 'utf8'))].filter((n) => !exported.has(n))).toEqual([]);
}

export const DEPLOYED_NAMESPACE = 'featuregate-coordinator';
export interface Rule { nonResourceURLs?: string[] }

/**
 * The operator's ServiceAccount with the RBAC of deploy/base (clusterrole.yaml, role.yaml), keeping the rules `keep`
 * accepts; returns a kubeconfig file with its token.
 */
export async function deployedServiceAccount(plane: ControlPlane, keep: (rule: Rule) => boolean): Promise<string> {
  const t = KubeTransport.for(readKubeconfigFile(plane.kubeconfigPath)!);
  const post = (path: string, body: unknown) => t.request({ method: 'POST', path, body });
  await ensureNamespace(readKubeconfigFile(plane.kubeconfigPath)!, DEPLOYED_NAMESPACE);
  await post(`/api/v1/namespaces/${DEPLOYED_NAMESPACE}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'featuregate-operator' } });
  const plural: Record<string, string> = { ClusterRole: 'clusterroles', ClusterRoleBinding: 'clusterrolebindings', Role: 'roles', RoleBinding: 'rolebindings' };
  for (const file of ['clusterrole.yaml', 'role.yaml']) {
    for (const doc of parseAllDocuments(readFileSync(join('deploy', 'base', file), 'utf8'))) {
      const o = doc.toJSON() as { kind: string; metadata: { namespace?: string }; rules?: Rule[] };
      if (o.rules) o.rules = o.rules.filter(keep);
      const ns = o.metadata.namespace ? `/namespaces/${o.metadata.namespace}` : '';
      await post(`/apis/rbac.authorization.k8s.io/v1${ns}/${plural[o.kind]}`, o);
    }
  }
  const path = join(tempDir('fgc-alerts-sa-'), 'kubeconfig');
  writeFileSync(path, (await serviceAccountKubeConfig(plane, DEPLOYED_NAMESPACE, 'featuregate-operator')).exportConfig());
  return path;
}

/** Every query of the dashboard parses (promtool check rules, each as a recording rule) and uses only exported names. */
export function expectDashboardSound(dashboard: string, scrapes: Scrape[]): void {
  const queries = dashboardQueries(readFileSync(join('deploy', 'prometheus', 'dashboards', dashboard), 'utf8'));
  expect(queries.length).toBeGreaterThan(5);
  const file = join(tempDir('fgc-dashboard-'), 'queries.rules.yaml');
  writeFileSync(file, stringify({ groups: [{ name: 'dashboard', rules: queries.map((expr, i) => ({ record: `dashboard:query_${i}`, expr })) }] }));
  const r = spawnSync(promtool, ['check', 'rules', file], { encoding: 'utf8' });
  expect(`${r.stdout}${r.stderr}`).toContain(`SUCCESS: ${queries.length} rules found`);
  expect(r.status).toBe(0);
  const exported = new Set(scrapes.flatMap((s) => s.samples.map((x) => x.name)));
  expect([...metricNames(queries)].filter((n) => !exported.has(n))).toEqual([]);
}

/** Prometheus's humanizePercentage, as an alert's annotation renders a ratio. */
export function humanizePercentage(v: number): string {
  return `${Number((v * 100).toPrecision(4))}%`;
}
