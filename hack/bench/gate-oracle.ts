// The larger run of the gate-rules oracle (test/integration/gate-rules-oracle.test.ts runs a small corpus in npm test):
// every component (kube-apiserver, kube-controller-manager, kube-scheduler) on every case of a corpus with
// --mixes random sets per emulated version (default 60), at emulated 1.34, 1.35 and 1.36; prints how many verdicts
// agree with checkFeatureGates, per rule, and every disagreement.
//   npm run bench -- gate-oracle [--mixes N] [--seed S]     (KUBEBUILDER_ASSETS, else hack/envtest's build)
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { checkFeatureGates, kubernetesGateRules } from '../../api-types/index.js';
import { packageRoot } from '../../control-plane/binaries.js';
import { ORACLE_COMPONENTS, gateCorpus, gateFlag, oracle, oracleAgrees } from '../../test/support/gate-oracle.js';

const { values } = parseArgs({ options: { mixes: { type: 'string', default: '60' }, seed: { type: 'string', default: '7' } } });
const bin = process.env.KUBEBUILDER_ASSETS ?? execFileSync('bash', [join(packageRoot(), 'hack', 'envtest', 'build.sh'), '--with-components'],
  { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim().split('\n').pop()!;
const rules = kubernetesGateRules('1.36');
const corpus = ['1.34', '1.35', '1.36'].flatMap((e) => gateCorpus(rules, e, Number(values.mixes), Number(values.seed)));
const jobs = corpus.flatMap((c) => ORACLE_COMPONENTS.map((component) => ({ c, component })));
const t0 = Date.now();
let next = 0;
let agree = 0;
const byKind = new Map<string, number>();
const disagreements: string[] = [];
await Promise.all([0, 1].map(async () => {
  for (let i = next++; i < jobs.length; i = next++) {
    const { c, component } = jobs[i]!;
    const theirs = await oracle(bin, component, c.gates, c.emulatedVersion);
    const ours = checkFeatureGates({ kubernetesVersion: '1.36', emulatedVersion: c.emulatedVersion, gates: c.gates, component });
    const { agrees: ok, named } = oracleAgrees(ours, theirs);
    if (ok) agree++;
    else disagreements.push(`${component} ${c.name} [${gateFlag(c.gates)}]: ours ${JSON.stringify(named)}, binary ${JSON.stringify(theirs.named)}`);
    for (const k of new Set(ours.problems.map((p) => p.kind))) byKind.set(k, (byKind.get(k) ?? 0) + 1);
    byKind.set(ours.starts ? 'starts' : 'refused', (byKind.get(ours.starts ? 'starts' : 'refused') ?? 0) + 1);
  }
}));
console.log(`${corpus.length} gate sets × ${ORACLE_COMPONENTS.length} components v1.36.3 = ${jobs.length} verdicts in ${((Date.now() - t0) / 1000).toFixed(0)} s: ` +
  `${agree} agree, ${disagreements.length} disagree`);
console.log(`verdicts by rule (a set counts once per rule it breaks): ${[...byKind].map(([k, n]) => `${k} ${n}`).join(', ')}`);
for (const d of disagreements) console.log(`  DISAGREE ${d}`);
process.exit(disagreements.length ? 1 : 0);
