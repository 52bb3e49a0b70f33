// The OKD feature-set migration (cluster-config-operator since 4.22, SCOS builds): with --okd-build, a Default
// FeatureGate is moved to OKD once — server-side apply by OKDFeatureSetMigrationController, an Event — and never
// without it. On a real kube-apiserver with openshift/api's own CRD (its CEL rules refuse OKD → Default), the
// operator started with the Deployment's args from the vanilla overlay plus deploy/components/okd, as its
// ServiceAccount with exactly that RBAC.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ClusterOperatorResource, FeatureGateResource, KubeTransport, ResourceClient } from '../../runtime/index.js';
import { resolveBinaries, serviceAccountKubeConfig, setClusterVersion, setFeatureGateSpec, startControlPlane, upstreamCRDPaths, type ControlPlane } from '../../sdk/testing/index.js';
import { runCLI, spawnCLI } from '../support/cli.js';
import { eventually } from '../support/timing.js';
import { tempDirs } from '../support/temp.js';

const tempDir = tempDirs();
const NS = 'featuregate-coordinator';
const PAYLOAD = join(process.cwd(), 'test', 'fixtures', 'openshift-api', 'payload-featuregates', 'releases', 'release-5.1');
const kubectl = resolveBinaries().kubectl!;
interface Doc { kind: string; metadata: { name: string }; spec?: { template?: { spec: { containers: { args: string[] }[] } } } }

let plane: ControlPlane;
let saKubeconfig: string;
let deploymentArgs: string[];
const procs: ChildProcess[] = [];

beforeAll(async () => {
  plane = await startControlPlane({ crdPaths: upstreamCRDPaths() });
  await setClusterVersion(plane.kubeConfig, { history: ['5.1.0'] });
  await setFeatureGateSpec(plane.kubeConfig, {});
  // An overlay with the okd component, rendered as a user would include it.
  const overlay = join(process.cwd(), '.cache', 'okd-overlay');
  mkdirSync(overlay, { recursive: true });
  writeFileSync(join(overlay, 'kustomization.yaml'), 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n' +
    'resources: [../../deploy/overlays/vanilla]\ncomponents: [../../deploy/components/okd]\n');
  const docs = parseAllDocuments(execFileSync(kubectl, ['kustomize', '--load-restrictor', 'LoadRestrictionsNone', overlay], { encoding: 'utf8' }))
    .map((d) => d.toJS() as Doc).filter(Boolean);
  const rbac = docs.filter((d) => ['Namespace', 'ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'].includes(d.kind));
  expect(rbac.map((d) => d.metadata.name)).toContain('featuregate-operator-okd');
  execFileSync(kubectl, ['--kubeconfig', plane.kubeconfigPath, 'apply', '--server-side', '-f', '-'], { input: rbac.map((d) => JSON.stringify(d)).join('\n'), encoding: 'utf8' });
  saKubeconfig = join(tempDir('fgc-okd-'), 'kubeconfig');
  writeFileSync(saKubeconfig, (await serviceAccountKubeConfig(plane, NS, 'featuregate-operator')).exportConfig());
  deploymentArgs = docs.find((d) => d.kind === 'Deployment')!.spec!.template!.spec.containers[0]!.args.map((a) =>
    a.startsWith('--authoritative-feature-gate-dir=') ? `--authoritative-feature-gate-dir=${PAYLOAD}`
      : a.startsWith('--metrics-bind-address=') ? '--metrics-bind-address=0' : a.startsWith('--health-probe-bind-address=') ? '--health-probe-bind-address=0' : a);
}, 120_000);

afterAll(async () => {
  for (const p of procs) p.kill('SIGKILL');
  await plane?.stop();
});

function operator(args: string[]): { stop(): Promise<void>; log(): string } {
  const p = spawnCLI([...args, '--kubeconfig', saKubeconfig, '--operator-version', '5.1.0'], { POD_NAMESPACE: NS });
  procs.push(p);
  let log = '';
  p.stderr!.on('data', (d: Buffer) => { log += d.toString(); });
  return {
    log: () => log,
    stop: () => new Promise<void>((resolve) => {
      if (p.exitCode !== null || p.signalCode !== null) { resolve(); return; }
      p.once('exit', () => resolve());
      p.kill('SIGTERM');
    }),
  };
}
const fgs = () => new ResourceClient(plane.kubeConfig, FeatureGateResource);
const upgradeable = async () => (await new ResourceClient(plane.kubeConfig, ClusterOperatorResource).get('config-operator')).status?.conditions?.find((c) => c.type === 'Upgradeable');

describe('OKD feature-set migration', () => {
  it('without --okd-build: a Default FeatureGate stays Default', async () => {
    const op = operator(deploymentArgs.filter((a) => a !== '--okd-build'));
    try {
      await eventually(async () => expect((await fgs().get('cluster')).status?.featureGates.map((e) => e.version)).toEqual(['5.1.0']), 60_000, 300)
        .catch((e: Error) => { throw new Error(`${e.message}\n${op.log().slice(-2000)}`); });
      await eventually(async () => expect(await upgradeable()).toMatchObject({ status: 'True' }), 30_000, 300);
      expect((await fgs().get('cluster')).spec.featureSet ?? '').toBe('');
    } finally {
      await op.stop();
    }
  }, 90_000);

  it('with the okd component: moved to OKD once, by its own field manager, with an Event; upgrades stay allowed; OKD → Default is refused', async () => {
    expect(deploymentArgs).toContain('--okd-build');
    const op = operator(deploymentArgs);
    try {
      await eventually(async () => expect((await fgs().get('cluster')).spec.featureSet).toBe('OKD'), 60_000, 300)
        .catch((e: Error) => { throw new Error(`${e.message}\n${op.log().slice(-2000)}`); });
      const fg = await fgs().get('cluster');
      const managers = ((fg.metadata as { managedFields?: { manager: string; operation: string }[] }).managedFields ?? []).map((m) => `${m.manager}/${m.operation}`);
      expect(managers).toContain('OKDFeatureSetMigrationController/Apply');
      await eventually(async () => expect(await upgradeable()).toMatchObject({ status: 'True', reason: 'AsExpected' }), 30_000, 300);
      // Events are written from the recorder's queue, after the change they tell of.
      await eventually(async () => {
        const events = await KubeTransport.for(plane.kubeConfig).request({ method: 'GET', path: `/api/v1/namespaces/${NS}/events` }) as { items: { reason: string; message: string }[] };
        expect(events.items.filter((e) => e.reason === 'OKDFeatureSetMigration').map((e) => e.message))
          .toEqual(['spec.featureSet moved from Default to OKD: this is an OKD build']);
      }, 10_000, 200);
      // the status is the OKD set's, as `render` computes it
      const okdSpec = join(tempDir('fgc-okd-spec-'), 'fg.yaml');
      writeFileSync(okdSpec, 'apiVersion: config.openshift.io/v1\nkind: FeatureGate\nmetadata: {name: cluster}\nspec: {featureSet: OKD}\n');
      const expected = JSON.parse(runCLI(['render', '--payload-version', '5.1.0', '--authoritative-feature-gate-dir', PAYLOAD, '--featuregate', okdSpec, '-o', 'json']).stdout).status.featureGates;
      await eventually(async () => expect((await fgs().get('cluster')).status?.featureGates).toEqual(expected), 30_000, 300);
      // once: the CRD's CEL rule refuses the way back
      await expect(fgs().replace({ ...(await fgs().get('cluster')), spec: { featureSet: '' } })).rejects.toThrow(/OKD cannot transition to Default/);
      expect(op.log()).not.toContain('Forbidden');
    } finally {
      await op.stop();
    }
  }, 90_000);
});
