// The generated kubelet configuration rules (api-types/kubelet-config-rules/) are what hack/update-kubelet-config-rules.mjs
// reads from each release's validation.go and defaults.go today: regenerating them changes nothing. And the reader
// refuses what it does not understand — a check whose condition mixes a gate with a shape it does not know, or a gate
// named and never read — rather than guess (hand-made Go sources; the releases' own run through --check).
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../../control-plane/binaries.js';
// @ts-expect-error: a plain ESM script of hack/, no types
import { fieldPredicate, gatedDefaults, goConstants, validationRules } from '../../hack/update-kubelet-config-rules.mjs';

const wrap = (body: string) => `package validation\n\nfunc ValidateKubeletConfiguration(kc *kubeletconfig.KubeletConfiguration, featureGate featuregate.FeatureGate) error {\n${body}\n}\n`;
const consts = goConstants('var (\n\tdefaultCFSQuota = metav1.Duration{Duration: 100 * time.Millisecond}\n)\nconst previous = 0.9\n');

describe('hack/update-kubelet-config-rules.mjs', () => {
  it('--check: every generated file is what the releases\' sources give', () => {
    const r = spawnSync(process.execPath, [join(packageRoot(), 'hack', 'update-kubelet-config-rules.mjs'), '--check'], { encoding: 'utf8', timeout: 600_000 });
    expect(`${r.status} ${r.stdout}${r.stderr}`).toBe('0 generated kubelet configuration rules up to date\n');
  }, 620_000);

  it('reads the shapes the releases use: a gate off beside a field, an else of a gate, a gate around a field test', () => {
    const { rules } = validationRules(wrap([
      '\tif kc.ImageMaximumGCAge.Duration != 0 && !localFeatureGate.Enabled(features.ImageMaximumGCAge) {',
      '\t\tallErrors = append(allErrors, fmt.Errorf("needs ImageMaximumGCAge"))\n\t}',
      '\tif localFeatureGate.Enabled(features.KubeletCrashLoopBackOffMax) {',
      '\t\tif kc.CrashLoopBackOff.MaxContainerRestartPeriod == nil {\n\t\t\tallErrors = append(allErrors, fmt.Errorf("must be set"))\n\t\t}',
      '\t} else if kc.CrashLoopBackOff.MaxContainerRestartPeriod != nil {\n\t\tallErrors = append(allErrors, fmt.Errorf("must not be set"))\n\t}',
      '\tif !localFeatureGate.Enabled(features.CPUCFSQuotaPeriod) && kc.CPUCFSQuotaPeriod != defaultCFSQuota {',
      '\t\tallErrors = append(allErrors, fmt.Errorf("quota %v"))\n\t}',
    ].join('\n')), consts);
    expect(rules).toEqual([
      { gate: 'ImageMaximumGCAge', enabled: false, when: [{ field: 'ImageMaximumGCAge', test: 'nonzero' }], message: 'needs ImageMaximumGCAge' },
      { gate: 'KubeletCrashLoopBackOffMax', enabled: true, when: [{ field: 'CrashLoopBackOff.MaxContainerRestartPeriod', test: 'unset' }], message: 'must be set' },
      { gate: 'KubeletCrashLoopBackOffMax', enabled: false, when: [{ field: 'CrashLoopBackOff.MaxContainerRestartPeriod', test: 'set' }], message: 'must not be set' },
      { gate: 'CPUCFSQuotaPeriod', enabled: false, when: [{ field: 'CPUCFSQuotaPeriod', test: 'differs', value: { duration: 100 } }], message: 'quota %v' },
    ]);
  });

  it('refuses a gate beside a condition of a shape it does not know, and a gate named but never read', () => {
    expect(() => validationRules(wrap([
      '\tif someHelper(kc) && !localFeatureGate.Enabled(features.NodeSwap) {',
      '\t\tallErrors = append(allErrors, fmt.Errorf("odd"))\n\t}',
    ].join('\n')), consts)).toThrow('a check under a disabled gate');
    expect(() => validationRules(wrap('\tok := localFeatureGate.Enabled(features.NodeSwap)\n\t_ = ok'), consts)).toThrow('gate NodeSwap is named but no check of it was read');
    expect(fieldPredicate('kc.Foo > 3', consts)).toBeUndefined();
    expect(fieldPredicate('*kc.MemoryThrottlingFactor != previous', consts)).toEqual({ field: 'MemoryThrottlingFactor', test: 'differs', value: 0.9 });
  });

  it('refuses a gated default it cannot read', () => {
    const defaults = (value: string) => `package v1beta1\n\nfunc SetDefaults_KubeletConfiguration(obj *kubeletconfigv1beta1.KubeletConfiguration) {\n` +
      `\tif localFeatureGate.Enabled(features.KubeletCrashLoopBackOffMax) {\n\t\tif obj.CrashLoopBackOff.MaxContainerRestartPeriod == nil {\n` +
      `\t\t\tobj.CrashLoopBackOff.MaxContainerRestartPeriod = ${value}\n\t\t}\n\t}\n}\n`;
    const known = goConstants('const (\n\tMaxContainerBackOff = 300 * time.Second\n)\n');
    expect(gatedDefaults(defaults('&metav1.Duration{Duration: MaxContainerBackOff}'), known)).toEqual([
      { gate: 'KubeletCrashLoopBackOffMax', field: 'CrashLoopBackOff.MaxContainerRestartPeriod', value: { duration: 300_000 } }]);
    expect(() => gatedDefaults(defaults('computeIt()'), known)).toThrow('cannot read the value computeIt()');
  });
});
