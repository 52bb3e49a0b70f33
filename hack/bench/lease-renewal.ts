// Benchmark: the CPU of one Lease renewal — the write a hosted replica makes for each shard it holds every 5 s and
// the single-cluster operator for its leader Lease (the largest share of an idle replica's CPU: a replica holding all
// 32 shards and no HCP spends ~0.44 s a minute). One local kube-apiserver; N Leases, each renewed by the elector's
// fast path (one PUT carrying the last resourceVersion) ROUNDS times in turn, one at a time; CPU of this process
// per renewal, and, with --profile, where it goes (sampled, summed by function).
//   npm run bench -- lease-renewal [--leases 12] [--rounds 200] [--profile]
import { Session } from 'node:inspector/promises';
import { parseArgs } from 'node:util';
import { kubeLeaseStore, microTime, readKubeconfigFile, type Lease } from '../../runtime/index.js';
import { startControlPlane } from '../../sdk/testing/index.js';
import { cpuProfileLines, type CpuProfile } from './profile-summary.js';

const { values: flags } = parseArgs({ options: { leases: { type: 'string', default: '12' }, rounds: { type: 'string', default: '200' }, profile: { type: 'boolean' } } });
const LEASES = Number(flags.leases);
const ROUNDS = Number(flags.rounds);
const say = (s: string) => process.stdout.write(`${s}\n`);

const plane = await startControlPlane({});
try {
  const kc = readKubeconfigFile(plane.kubeconfigPath)!;
  const stores = [...Array(LEASES).keys()].map((i) => kubeLeaseStore(kc, 'default', `bench-lease-${i}`));
  const now = () => microTime();
  const leases: Lease[] = await Promise.all(stores.map((s, i) => s.create({
    metadata: { name: `bench-lease-${i}`, namespace: 'default' },
    spec: { holderIdentity: 'bench', leaseDurationSeconds: 15, acquireTime: now(), renewTime: now(), leaseTransitions: 0 },
  }, 10_000)));
  const renewAll = async () => {
    for (let i = 0; i < LEASES; i++) {
      const l = leases[i]!;
      leases[i] = await stores[i]!.update({ ...l, spec: { ...l.spec, renewTime: now() } }, 10_000);
    }
  };
  for (let r = 0; r < 20; r++) await renewAll(); // warm-up: connections, code
  const session = flags.profile ? new Session() : undefined;
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    await session.post('Profiler.start');
  }
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let r = 0; r < ROUNDS; r++) await renewAll();
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const n = LEASES * ROUNDS;
  say(`node ${process.version}; ${n} renewals of ${LEASES} Leases, one at a time: ` +
    `CPU ${((cpu.user + cpu.system) / n).toFixed(0)} µs per renewal (user ${(cpu.user / n).toFixed(0)}, system ${(cpu.system / n).toFixed(0)}), ` +
    `wall ${(wall * 1000 / n).toFixed(0)} µs${session ? ' (profiler on)' : ''}`);
  if (session) {
    const { profile } = await session.post('Profiler.stop');
    session.disconnect();
    for (const l of cpuProfileLines(profile as CpuProfile)) say(l);
  }
} finally {
  await plane.stop();
}
