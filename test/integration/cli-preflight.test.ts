// `featuregates preflight` as a user runs it: the CustomNoUpgrade on the release-4.23 payload, explicit
// flags, the JSON contract, and exit codes (0 every component starts, 1 one would refuse, 2 usage).
import { describe, expect, it } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCLI } from '../support/cli.js';
import { PAYLOAD_ROOT } from '../support/payloads.js';
import { tempDirs } from '../support/temp.js';

const tempDir = tempDirs();
const PAYLOAD = join(PAYLOAD_ROOT, 'releases', 'release-4.23');

describe('featuregates preflight', () => {
  it('a CustomNoUpgrade disabling two locked gates on the release-4.23 payload: refused by every component, each gate named with its fix', () => {
    const file = join(tempDir('fgc-preflight-'), 'fg.yaml');
    writeFileSync(file, 'apiVersion: config.openshift.io/v1\nkind: FeatureGate\nmetadata: {name: cluster}\nspec:\n  featureSet: CustomNoUpgrade\n' +
      '  customNoUpgrade:\n    disabled: [MutableCSINodeAllocatableCount, ServiceAccountTokenNodeBinding]\n');
    const r = runCLI(['preflight', '-f', file, '--authoritative-feature-gate-dir', PAYLOAD, '--payload-version', '4.23.0', '--kubernetes-version', '1.36', '-o', 'json']);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as {
      kubernetesVersion: string;
      emulatedVersion: string;
      components: { name: string; flavor: string; starts: boolean; problems: { gate: string; kind: string; message: string }[] }[];
    };
    expect(report).toMatchObject({ kubernetesVersion: '1.36.3', emulatedVersion: '1.36' });
    expect(report.components.map((c) => [c.name, c.flavor, c.starts])).toEqual([
      ['kube-apiserver', 'openshift', false], ['kube-controller-manager', 'openshift', false], ['kube-scheduler', 'openshift', false], ['kubelet', 'openshift', false]]);
    expect(report.components[0]!.problems.map((p) => [p.gate, p.kind, p.message])).toEqual([
      ['MutableCSINodeAllocatableCount', 'locked', 'cannot set feature gate MutableCSINodeAllocatableCount to false, feature is locked to true'],
      ['ServiceAccountTokenNodeBinding', 'locked', 'cannot set feature gate ServiceAccountTokenNodeBinding to false, feature is locked to true'],
    ]);
    // The payload's Default set starts.
    const fine = join(tempDir('fgc-preflight-'), 'default.yaml');
    writeFileSync(fine, 'apiVersion: config.openshift.io/v1\nkind: FeatureGate\nmetadata: {name: cluster}\nspec: {}\n');
    const ok = runCLI(['preflight', '-f', fine, '--authoritative-feature-gate-dir', PAYLOAD, '--payload-version', '4.23.0', '--kubernetes-version', '1.36']);
    expect(`${ok.code} ${ok.stdout}`).toMatch(/^0 Kubernetes 1\.36\.3, emulated version 1\.36\n\nkube-apiserver +starts/);
  });

  it('explicit flags: a dependency off through a default at an emulated version, as a table with what to change', () => {
    const r = runCLI(['preflight', '--kubernetes-version', '1.36', '--emulated-version', '1.35', '--feature-gates', 'UserNamespacesSupport=false']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('kube-apiserver           REFUSES (1)');
    expect(r.stdout).toContain('dependency ProcMountType: ProcMountType is enabled, but depends on features that are disabled: [UserNamespacesSupport]');
    expect(r.stdout).toContain('fix: enable UserNamespacesSupport, or disable ProcMountType (on by default at 1.35)');
    expect(runCLI(['preflight', '--kubernetes-version', '1.36', '--feature-gates', 'DRAAdminAccess=true']).code).toBe(0);
  });

  it('usage errors exit 2 and say what to give', () => {
    const cases: [string[], string][] = [
      [['preflight', '-f', 'x.yaml', '--feature-gates', 'A=true'], 'give one of --feature-gates, -f or --kubeconfig, not -f and --feature-gates'],
      [['preflight', '--kubeconfig', 'k', '--feature-gates', 'A=true'], 'not --feature-gates and --kubeconfig'],
      [['preflight', '--feature-gates', 'A=true'], '--feature-gates needs --kubernetes-version'],
      [['preflight', '--kubernetes-version', '1.30', '--feature-gates', 'A=true'], 'no feature-gate rules for Kubernetes 1.30'],
      [['preflight', '--kubernetes-version', '1.36', '--emulated-version', '1.32', '--feature-gates', 'A=true'], 'emulated version 1.32 is not between [1.33, 1.36]'],
      [['preflight', '--kubernetes-version', '1.36', '--feature-gates', 'A=maybe'], 'invalid value of A: "maybe"'],
      [['preflight', '-f', 'x.yaml', '--payload-version', '4.23.0'], '-f needs --authoritative-feature-gate-dir'],
    ];
    for (const [args, message] of cases) {
      const r = runCLI(args);
      expect(`${args.join(' ')} → ${r.code} ${r.stderr}`).toContain(`→ 2 `);
      expect(r.stderr).toContain(message);
    }
  });

  it('explain says what Kubernetes\' own rules say of a Kubernetes gate: stage, default, lock, dependencies both ways', () => {
    const r = runCLI(['explain', 'DynamicResourceAllocation', '--authoritative-feature-gate-dir', PAYLOAD, '--payload-version', '4.23.0', '--kubernetes-version', '1.36']);
    expect(r.stdout).toContain('Kubernetes 1.36.3: GA, on by default, locked: setting it false stops every component');
    expect(r.stdout).toContain('  needed by DRAAdminAccess, DRAConsumableCapacity,');
    const dependent = runCLI(['explain', 'ProcMountType', '--authoritative-feature-gate-dir', PAYLOAD, '--payload-version', '4.23.0', '--kubernetes-version', '1.35', '-o', 'json']);
    expect(JSON.parse(dependent.stdout).kubernetes).toEqual({ version: '1.35.4', stage: 'Beta', default: true, locked: false, dependsOn: ['UserNamespacesSupport'], neededBy: [],
      kubeletConfiguration: [], kubeletDefaults: [] });
    const kubelet = runCLI(['explain', 'KubeletCrashLoopBackOffMax', '--authoritative-feature-gate-dir', PAYLOAD, '--payload-version', '4.23.0', '--kubernetes-version', '1.37']);
    expect(kubelet.stdout).toContain('  while it is off, the kubelet checks its configuration\'s crashLoopBackOff.maxContainerRestartPeriod: ' +
      '"invalid configuration: FeatureGate KubeletCrashLoopBackOffMax not enabled, CrashLoopBackOff.MaxContainerRestartPeriod must not be set"');
    expect(kubelet.stdout).toContain('  the kubelet\'s defaults set crashLoopBackOff.maxContainerRestartPeriod while it is on');
  });
});

describe('featuregates preflight: the kubelet\'s configuration (issue 65)', () => {
  it('KubeletCrashLoopBackOffMax=false by flag at 1.37: the kubelet with its defaults refuses, naming the gate and the field; given in its file, it starts', () => {
    const r = runCLI(['preflight', '--kubernetes-version', '1.37', '--feature-gates', 'KubeletCrashLoopBackOffMax=false']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('kube-apiserver           starts');
    expect(r.stdout).toContain('kubelet                  REFUSES (1)');
    expect(r.stdout).toContain('config     KubeletCrashLoopBackOffMax (crashLoopBackOff.maxContainerRestartPeriod): invalid configuration: ' +
      'FeatureGate KubeletCrashLoopBackOffMax not enabled, CrashLoopBackOff.MaxContainerRestartPeriod must not be set');
    expect(runCLI(['preflight', '--kubernetes-version', '1.37', '--feature-gates', 'KubeletCrashLoopBackOffMax=false', '--kubelet-gates', 'file']).code).toBe(0);
    const allBeta = JSON.parse(runCLI(['preflight', '--kubernetes-version', '1.37', '--feature-gates', 'AllBeta=false', '-o', 'json']).stdout) as { components: { name: string; problems: { gate: string }[] }[] };
    expect(allBeta.components.find((c) => c.name === 'kubelet')!.problems.map((p) => p.gate)).toEqual(['KubeletCrashLoopBackOffMax', 'KubeletEnsureSecretPulledImages']);
  });

  it('the 5.0 payload\'s CustomNoUpgrade disabling KubeletCrashLoopBackOffMax: OpenShift\'s kubelets (gates in their file) start; with a node configuration that sets the field, refused', () => {
    const dir = tempDir('fgc-preflight-kubelet-');
    const fg = join(dir, 'fg.yaml');
    writeFileSync(fg, 'apiVersion: config.openshift.io/v1\nkind: FeatureGate\nmetadata: {name: cluster}\nspec:\n  featureSet: CustomNoUpgrade\n' +
      '  customNoUpgrade:\n    disabled: [KubeletCrashLoopBackOffMax]\n');
    const payload = join(PAYLOAD_ROOT, 'releases', 'release-5.0');
    const args = ['preflight', '-f', fg, '--authoritative-feature-gate-dir', payload, '--payload-version', '5.0.0'];
    expect(runCLI(args).code).toBe(0);
    const kubelet = join(dir, 'kubelet.yaml');
    writeFileSync(kubelet, 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncrashLoopBackOff:\n  maxContainerRestartPeriod: 2m\n');
    const r = runCLI([...args, '--kubelet-config', kubelet]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('kubelet refuses to start:\n  config     KubeletCrashLoopBackOffMax (crashLoopBackOff.maxContainerRestartPeriod)');
    // and given by flag to a kubelet without a file, as the issue measured: refused too
    expect(runCLI([...args, '--kubelet-gates', 'flag']).code).toBe(1);
  });

  it('preview says which kubelets would stop and why, with the nodes\' configuration', () => {
    const dir = tempDir('fgc-preview-kubelet-');
    const fg = join(dir, 'fg.yaml');
    writeFileSync(fg, 'apiVersion: config.openshift.io/v1\nkind: FeatureGate\nmetadata: {name: cluster}\nspec:\n  featureSet: CustomNoUpgrade\n' +
      '  customNoUpgrade:\n    disabled: [KubeletEnsureSecretPulledImages]\n');
    const kubelet = join(dir, 'kubelet.yaml');
    writeFileSync(kubelet, 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nimagePullCredentialsVerificationPolicy: AlwaysVerify\n');
    const args = ['preview', '-f', fg, '--authoritative-feature-gate-dir', join(PAYLOAD_ROOT, 'releases', 'release-5.0'), '--payload-version', '5.0.0'];
    expect(runCLI(args).stdout).not.toContain('would not start');
    const r = runCLI([...args, '--kubelet-config', kubelet]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('would not start: the kubelets (imagePullCredentialsVerificationPolicy) of Kubernetes 1.36.3 refuse KubeletEnsureSecretPulledImages (config): ' +
      'invalid configuration: `imagePullCredentialsVerificationPolicy` must not be set if KubeletEnsureSecretPulledImages feature gate is not enabled');
  });

  it('a --kubelet-config that is not a KubeletConfiguration: exit 2 naming the file and the field', () => {
    const kubelet = join(tempDir('fgc-preflight-kubelet-'), 'kubelet.yaml');
    writeFileSync(kubelet, 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nfeatureGates:\n  NodeSwap: "yes"\n');
    const r = runCLI(['preflight', '--kubernetes-version', '1.36', '--feature-gates', 'NodeSwap=true', '--kubelet-config', kubelet]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--kubelet-config: ${kubelet}: featureGates.NodeSwap: expected boolean, got string`);
    writeFileSync(kubelet, 'apiVersion: v1\nkind: ConfigMap\n');
    expect(runCLI(['preflight', '--kubernetes-version', '1.36', '--feature-gates', 'NodeSwap=true', '--kubelet-config', kubelet]).stderr)
      .toContain('apiVersion: expected "kubelet.config.k8s.io/v1beta1", got "v1"');
  });
});
