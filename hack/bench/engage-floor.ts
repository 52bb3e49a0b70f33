// The floor of a take-over: what taking N live guests over costs a client that does nothing but the requests
// hosted mode makes of each guest it takes over (engage-side.ts says which), for client-go (hack/bench/go-engage:
// a REST config, a dynamic client and three informers per guest) and for Node.js (its built-ins alone, and the
// coordinator's own guest connection and clients) — against which the fleet's `takeoverCpuMsPerGuest` and
// `hosted-profile --hollow N --start` (the whole replica) read. Each side in a process of its own, on fresh hollow
// guests (hollow-guests-process.ts) each round, the sides' order turned every round; Node sides with the image's
// node flags (OPERATOR_NODE_FLAGS overrides).
//   npm run bench -- engage-floor [--guests 356] [--rounds 2] [--in-flight 16] [--json FILE]
// Prints per round and side: CPU per guest (ms), wall time, the hollow guests' CPU meanwhile; then the medians.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ClusterProfiles, resolveFeatureGateDetails } from '../../api-types/index.js';
import { ReleaseCatalog } from '../../hosted/release-catalog.js';
import { goBenchBinary } from './go-bench.js';
import { BENCH_PAYLOAD_CATALOG } from './fleet-replicas.js';
import { HollowGuests } from './hollow-guests-client.js';
import { nodeFlagsOrImage } from './operator-process.js';
import { median } from './stats.js';

const { values: flags } = parseArgs({
  options: { guests: { type: 'string', default: '356' }, rounds: { type: 'string', default: '2' }, 'in-flight': { type: 'string', default: '16' }, json: { type: 'string' } },
});
const N = Number(flags.guests);
const say = (s: string) => process.stdout.write(`${s}\n`);
const VERSION = '4.22.0';

const GO_ENGAGE = goBenchBinary('go-engage');
const SIDE_SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'engage-side.js');

// What the coordinator writes to a guest of 4.22.0 with no spec (the same objects for every side).
const registry = new ReleaseCatalog(BENCH_PAYLOAD_CATALOG).registry(VERSION, ClusterProfiles.IBMCloudManaged);
const featureGate = {
  apiVersion: 'config.openshift.io/v1', kind: 'FeatureGate', metadata: { name: 'cluster' }, spec: {},
  status: { featureGates: [resolveFeatureGateDetails({}, registry, VERSION)] },
};
const at = '2026-01-01T00:00:00Z';
const clusterOperator = {
  apiVersion: 'config.openshift.io/v1', kind: 'ClusterOperator', metadata: { name: 'config-operator' }, spec: {},
  status: {
    conditions: ['Available', 'Progressing', 'Degraded', 'Upgradeable'].map((type) => ({
      type, status: type === 'Available' || type === 'Upgradeable' ? 'True' : 'False', lastTransitionTime: at, reason: 'AsExpected', message: 'All is well',
    })),
    versions: [{ name: 'operator', version: VERSION }, { name: 'feature-gates', version: VERSION }],
    relatedObjects: [{ group: 'config.openshift.io', resource: 'featuregates', name: 'cluster' }],
  },
};

type Side = 'client-go' | 'node' | 'runtime';
const SIDES: Side[] = ['client-go', 'node', 'runtime'];
interface Row { round: number; side: Side; cpuMsPerGuest: number; wallS: number; hollowCpuS: number; failed: number }

function runSide(side: Side, inputPath: string): Promise<{ cpuS: number; wallS: number; failed: number; firstError?: string }> {
  const inFlight = ['--in-flight', flags['in-flight']!];
  const proc = side === 'client-go'
    ? spawn(GO_ENGAGE, ['--input', inputPath, ...inFlight], { stdio: ['ignore', 'pipe', 'inherit'] })
    : spawn(process.execPath, [...nodeFlagsOrImage(), SIDE_SCRIPT, '--side', side, '--input', inputPath, ...inFlight], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  proc.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  return new Promise((resolve, reject) => proc.on('exit', (code) => {
    const line = out.trim().split('\n').at(-1);
    if (code !== 0 || !line) return reject(new Error(`${side} exited ${code}`));
    resolve(JSON.parse(line) as { cpuS: number; wallS: number; failed: number; firstError?: string });
  }));
}

const dir = mkdtempSync(join(tmpdir(), 'engage-floor-'));
const rows: Row[] = [];
for (let round = 1; round <= Number(flags.rounds); round++) {
  const order = [...SIDES.slice((round - 1) % SIDES.length), ...SIDES.slice(0, (round - 1) % SIDES.length)];
  for (const side of order) {
    const hollow = await HollowGuests.start(N, VERSION);
    const inputPath = join(dir, `${side}-${round}.json`);
    writeFileSync(inputPath, JSON.stringify({ kubeconfigs: hollow.kubeconfigs, featureGate, clusterOperator }));
    const hollow0 = hollow.cpuS();
    const r = await runSide(side, inputPath);
    const hollowCpuS = hollow.cpuS() - hollow0;
    hollow.stop();
    const row = { round, side, cpuMsPerGuest: (r.cpuS * 1000) / N, wallS: r.wallS, hollowCpuS, failed: r.failed };
    rows.push(row);
    say(`round ${round} ${side.padEnd(9)}: ${N} guests taken over, CPU ${r.cpuS.toFixed(2)} s = ${row.cpuMsPerGuest.toFixed(2)} ms a guest, ` +
      `${r.wallS.toFixed(1)} s, the hollow guests ${hollowCpuS.toFixed(2)} s${r.failed ? `; ${r.failed} failed: ${r.firstError}` : ''}`);
    if (r.failed) process.exitCode = 1;
  }
}
for (const side of SIDES) {
  const mine = rows.filter((r) => r.side === side);
  say(`median ${side.padEnd(9)}: ${median(mine.map((r) => r.cpuMsPerGuest)).toFixed(2)} ms of CPU a guest, ${median(mine.map((r) => r.wallS)).toFixed(1)} s for ${N}`);
}
rmSync(dir, { recursive: true, force: true });
if (flags.json) writeFileSync(flags.json, JSON.stringify({ guests: N, inFlight: Number(flags['in-flight']), rows }, null, 2));
