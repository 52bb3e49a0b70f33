// The real binaries judge the gate rules (issue 45): kube-apiserver, kube-controller-manager and kube-scheduler
// v1.36.3 (hack/envtest/build.sh --with-components) run on a generated corpus of `--feature-gates` sets at emulated
// versions 1.34, 1.35 and 1.36 (and v1.37.2, --kubernetes 1.37, on a smaller one at 1.35, 1.36 and 1.37) — locked
// gates flipped, dependencies off directly and through defaults, gates not there yet, typos, AllAlpha / AllBeta,
// random mixes — and checkFeatureGates must give each binary's verdict,
// naming the gates and the rules the binary names (test/support/gate-oracle.ts). A larger corpus:
// `npm run bench -- gate-oracle` (docs/gate-rules.md).
import { describe, expect, it } from '@jest/globals';
import { checkFeatureGates, kubernetesGateRules } from '../../api-types/index.js';
import { componentsDir } from '../support/components.js';
import { ORACLE_COMPONENTS, gateCorpus, gateFlag, inPairs, oracle, oracleAgrees, type CorpusCase, type OracleComponent } from '../support/gate-oracle.js';

const rules = kubernetesGateRules('1.36');
const corpus: CorpusCase[] = ['1.34', '1.35', '1.36'].flatMap((e) => gateCorpus(rules, e, 6));
/** At 1.37.2 (hack/envtest/build.sh --kubernetes 1.37): a smaller corpus, every component. */
const rules37 = kubernetesGateRules('1.37');
const corpus37: CorpusCase[] = ['1.35', '1.36', '1.37'].flatMap((e) => gateCorpus(rules37, e, 2));

describe('the gate rules against the real binaries v1.36.3', () => {
  it('the corpus covers each rule several times, both verdicts', () => {
    const kinds = new Map<string, number>();
    for (const c of corpus) {
      const v = checkFeatureGates({ kubernetesVersion: '1.36', emulatedVersion: c.emulatedVersion, gates: c.gates });
      for (const p of v.problems) kinds.set(p.kind, (kinds.get(p.kind) ?? 0) + 1);
      kinds.set(v.starts ? 'starts' : 'refused', (kinds.get(v.starts ? 'starts' : 'refused') ?? 0) + 1);
    }
    for (const k of ['locked', 'dependency', 'pre-alpha', 'unknown', 'starts', 'refused']) expect(`${k}: ${(kinds.get(k) ?? 0) >= 3}`).toBe(`${k}: true`);
  });

  it('kube-apiserver refuses exactly what checkFeatureGates refuses, naming the same gates and rules', async () => {
    const bin = componentsDir();
    const verdicts = await inPairs(corpus.map((c) => () => oracle(bin, 'kube-apiserver', c.gates, c.emulatedVersion)));
    const disagreements: string[] = [];
    corpus.forEach((c, i) => {
      const ours = checkFeatureGates({ kubernetesVersion: '1.36', emulatedVersion: c.emulatedVersion, gates: c.gates, component: 'kube-apiserver' });
      const theirs = verdicts[i]!;
      const { agrees, named } = oracleAgrees(ours, theirs);
      if (!agrees) disagreements.push(`${c.name} [${gateFlag(c.gates)}]: ours ${JSON.stringify(named)}, kube-apiserver ${JSON.stringify(theirs.named)}: ${theirs.said}`);
    });
    expect(disagreements).toEqual([]);
  }, 300_000);

  it('kube-controller-manager and kube-scheduler: the same verdicts, their own gates (a sample of the corpus)', async () => {
    // A quarter of the corpus, and every case about a gate only some components have (kube-scheduler lacks controller-manager's).
    const sample = corpus.filter((c, i) => i % 4 === 0 || c.name.includes('controller-manager gate'));
    expect(await disagreements('1.36', componentsDir(), sample, ORACLE_COMPONENTS.filter((c) => c !== 'kube-apiserver'))).toEqual([]);
  }, 300_000);
});

describe('the gate rules against the real binaries v1.37.2', () => {
  it('kube-apiserver, kube-controller-manager and kube-scheduler refuse exactly what checkFeatureGates refuses', async () => {
    expect(corpus37.length).toBeGreaterThan(60);
    expect(await disagreements('1.37', componentsDir('1.37'), corpus37, ORACLE_COMPONENTS)).toEqual([]);
  }, 300_000);
});

/** Each case on each component by the binaries of `bin`, two at a time: every verdict that is not ours, with what each side named. */
async function disagreements(
  kubernetesVersion: string,
  bin: string,
  cases: CorpusCase[],
  components: readonly OracleComponent[],
): Promise<string[]> {
  const jobs = cases.flatMap((c) =>
    components.map((component) => async () => ({ c, component, v: await oracle(bin, component, c.gates, c.emulatedVersion) })),
  );
  const out: string[] = [];
  for (const { c, component, v } of await inPairs(jobs)) {
    const ours = checkFeatureGates({ kubernetesVersion, emulatedVersion: c.emulatedVersion, gates: c.gates, component });
    const { agrees, named } = oracleAgrees(ours, v);
    if (!agrees)
      out.push(
        `${component} ${c.name} [${gateFlag(c.gates)}]: ours ${JSON.stringify(named)}, ${component} ${JSON.stringify(v.named)}: ${v.said}`,
      );
  }
  return out;
}
