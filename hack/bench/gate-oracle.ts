// The larger run of the gate oracles (test/integration/gate-rules-oracle.test.ts and kubelet-config-oracle.test.ts run
// small corpora in npm test): kube-apiserver, kube-controller-manager and kube-scheduler on every case of a corpus with
// --mixes random sets per emulated version (default 60) at the binary's minor and the two below it, and the kubelet
// (no emulated version) on the same sets by flag and in its configuration file plus a configuration per generated
// rule; prints per component how many verdicts agree with ours (checkFeatureGates, checkKubeletStart), per rule, and
// every disagreement.
//   npm run bench -- gate-oracle [--kubernetes 1.36|1.37] [--mixes N] [--seed S]
//   (1.36: KUBEBUILDER_ASSETS, else hack/envtest's build; another minor: hack/envtest/build.sh --kubernetes X.Y)
import { parseArgs } from 'node:util';
import { checkFeatureGates, kubeletConfigRules, kubernetesGateRules } from '../../api-types/index.js';
import { componentsDir } from '../../test/support/components.js';
import { ORACLE_COMPONENTS, gateCorpus, gateFlag, inPairs, oracle, oracleAgrees, type OracleVerdict } from '../../test/support/gate-oracle.js';
import { kubeletCorpus, kubeletOracle, kubeletVerdict } from '../../test/support/kubelet-oracle.js';
import type { GateStartCheck } from '../../api-types/index.js';

const { values } = parseArgs({ options: { kubernetes: { type: 'string', default: '1.36' }, mixes: { type: 'string', default: '60' }, seed: { type: 'string', default: '7' } } });
const minor = values.kubernetes;
const bin = componentsDir(minor === '1.36' ? undefined : minor);
const rules = kubernetesGateRules(minor);
const [major, m] = minor.split('.').map(Number) as [number, number];
const emulated = [m - 2, m - 1, m].map((x) => `${major}.${x}`);
const corpus = emulated.flatMap((e) => gateCorpus(rules, e, Number(values.mixes), Number(values.seed)));
const kubelet = kubeletCorpus(rules, gateCorpus(rules, minor, Number(values.mixes), Number(values.seed)), kubeletConfigRules(minor));

interface Job { component: string; name: string; flag: string; run: () => Promise<OracleVerdict>; ours: () => GateStartCheck }
const jobs: Job[] = [
  ...corpus.flatMap((c) => ORACLE_COMPONENTS.map((component) => ({ component, name: c.name, flag: gateFlag(c.gates),
    run: () => oracle(bin, component, c.gates, c.emulatedVersion),
    ours: () => checkFeatureGates({ kubernetesVersion: minor, emulatedVersion: c.emulatedVersion, gates: c.gates, component }) }))),
  ...kubelet.map((c) => ({ component: 'kubelet', name: c.name, flag: `${gateFlag(c.gates)} ${JSON.stringify(c.configuration ?? null)}`,
    run: () => kubeletOracle(bin, c, kubeletConfigRules(minor)), ours: () => kubeletVerdict(rules, c) })),
];
const t0 = Date.now();
const theirs = await inPairs(jobs.map((j) => j.run));
const per = new Map<string, { agree: number; total: number; refused: number; kinds: Map<string, number> }>();
const disagreements: string[] = [];
jobs.forEach((j, i) => {
  const ours = j.ours();
  const { agrees, named } = oracleAgrees(ours, theirs[i]!);
  const p = per.get(j.component) ?? { agree: 0, total: 0, refused: 0, kinds: new Map() };
  p.total++;
  if (agrees) p.agree++;
  else disagreements.push(`${j.component} ${j.name} [${j.flag}]: ours ${JSON.stringify(named)}, binary ${JSON.stringify(theirs[i]!.named)}`);
  if (!ours.starts) p.refused++;
  for (const k of new Set(ours.problems.map((x) => x.kind))) p.kinds.set(k, (p.kinds.get(k) ?? 0) + 1);
  per.set(j.component, p);
});
console.log(`Kubernetes ${rules.kubernetesVersion}: ${jobs.length} verdicts in ${((Date.now() - t0) / 1000).toFixed(0)} s (${bin})`);
console.log('| component | agree | refused | by rule (a set counts once per rule it breaks) |');
console.log('| --- | --- | --- | --- |');
for (const [c, p] of per) console.log(`| ${c} | ${p.agree} of ${p.total} | ${p.refused} | ${[...p.kinds].map(([k, n]) => `${k} ${n}`).join(', ')} |`);
for (const d of disagreements) console.log(`  DISAGREE ${d}`);
process.exit(disagreements.length ? 1 : 0);
