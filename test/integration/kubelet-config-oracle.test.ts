// The real kubelets v1.36.3 and v1.37.2 (hack/envtest/build.sh --with-components [--kubernetes 1.37]) judge the
// kubelet's start check (issue 65):
// component-base's gate rules and the kubelet's own configuration validation (api-types/kubelet-config.ts), on the
// gate corpus of gate-rules-oracle.test.ts given by flag and in the configuration file, the refusals the reference
// records, and a configuration per generated rule that sets its fields, with its gate on and off, on both routes.
// Each verdict — and the gates and rules the kubelet names — must be ours (test/support/kubelet-oracle.ts). A larger
// corpus: `npm run bench -- gate-oracle` (docs/gate-rules.md).
import { describe, expect, it } from '@jest/globals';
import { gateSpecAt, kubeletConfigRules, kubernetesGateRules } from '../../api-types/index.js';
import { componentsDir } from '../support/components.js';
import { gateCorpus, gateFlag, inPairs, oracleAgrees } from '../support/gate-oracle.js';
import { kubeletCorpus, kubeletOracle, kubeletVerdict } from '../support/kubelet-oracle.js';

describe.each(['1.36', '1.37'])('the kubelet %s judges its start check', (minor) => {
  const rules = kubernetesGateRules(minor);
  const configRules = kubeletConfigRules(minor);
  const corpus = kubeletCorpus(rules, gateCorpus(rules, minor, 4), configRules);

  it('the corpus refuses by configuration on both routes, and starts', () => {
    const verdicts = corpus.map((c) => ({ c, v: kubeletVerdict(rules, c) }));
    const config = verdicts.filter(({ v }) => v.problems.some((p) => p.kind === 'config'));
    expect(new Set(config.map(({ c }) => c.route))).toEqual(new Set(['flag', 'file']));
    // every rule whose gate can be in the state it refuses (not locked against it) refuses at least once
    // (a field defaulted whatever the gates is never unset: memoryThrottlingFactor at 1.36)
    const neverUnset = (r: (typeof configRules.requires)[number]) => r.when.some((w) => 'test' in w && w.test === 'unset' && configRules.defaulted.includes(w.field));
    const reachable = configRules.requires.filter((r) => {
      const s = gateSpecAt(rules, r.gate, minor)!;
      return (!s.lockToDefault || s.default === r.enabled) && !neverUnset(r);
    });
    const refusedBy = new Set(config.flatMap(({ v }) => v.problems.map((p) => p.message)));
    expect(reachable.filter((r) => ![...refusedBy].some((m) => m.startsWith(r.message.split('%')[0]!))).map((r) => r.message)).toEqual([]);
    expect(reachable.length).toBeGreaterThanOrEqual(6);
    expect(verdicts.filter(({ v }) => v.starts).length).toBeGreaterThan(20);
  });

  it('refuses exactly what checkKubeletStart refuses, naming the same gates and rules', async () => {
    const bin = componentsDir(minor === '1.36' ? undefined : minor);
    const theirs = await inPairs(corpus.map((c) => () => kubeletOracle(bin, c, configRules)));
    const disagreements: string[] = [];
    corpus.forEach((c, i) => {
      const { agrees, named } = oracleAgrees(kubeletVerdict(rules, c), theirs[i]!);
      if (!agrees) disagreements.push(`${c.name} [${gateFlag(c.gates)}] ${JSON.stringify(c.configuration ?? null)}: ours ${JSON.stringify(named)}, kubelet ${JSON.stringify(theirs[i]!.named)}: ${theirs[i]!.said}`);
    });
    expect(disagreements).toEqual([]);
  }, 300_000);
});
