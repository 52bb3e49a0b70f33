// Chaos: the operator (with --leader-elect) starts while kube-apiserver is down and comes up later.
// It must keep retrying with clear warnings (never exit), answer /readyz 503 until its caches sync, then
// become leader and write status.
import { Figures, converged, onChaosCluster, secs, sleep, until, type OperatorProcess, type ScenarioResult } from './lib.js';

async function readyz(op: OperatorProcess): Promise<number> {
  const r = await fetch(`http://${await op.healthAddress()}/readyz`, { signal: AbortSignal.timeout(2000) });
  return r.status;
}

export async function deadStart(o: { downMs: number }): Promise<ScenarioResult> {
  const f = new Figures();
  return onChaosCluster({}, async ({ plane, kc, operator }) => {
    await plane.stopAPIServer();
    const op = operator();
    const statuses = new Set<number>();
    const t0 = performance.now();
    while (performance.now() - t0 < o.downMs && !op.exited()) {
      statuses.add(await readyz(op).catch(() => -1));
      await sleep(500);
    }
    const aliveWhileDown = !op.exited();
    const warnings = op.log().split('\n').filter((l) => l.includes('"level":"warn"') && /Lease|list\/watch/.test(l));
    f.add(`still running after ${secs(o.downMs)} against a dead API server`, aliveWhileDown ? 'yes' : `no (exit ${JSON.stringify(await op.exit)})`, 'yes', aliveWhileDown);
    f.add('warnings logged while waiting (Lease and list/watch retries)', warnings.length, '≥ 2', warnings.length >= 2);
    f.add('/readyz while the API server is down', [...statuses].join(', '), '503 only', statuses.size === 1 && statuses.has(503));
    await plane.startAPIServer();
    const ms = await until('leader writes status', () => converged(kc), 60_000, 50);
    const ready = await readyz(op).catch(() => -1);
    f.add('API server up → status written', secs(ms), '≤ 5 s', ms <= 5000);
    f.add('/readyz once caches synced', ready, '200', ready === 200);
    if (!aliveWhileDown) process.stderr.write(op.log());
    return { name: 'start against a dead API server', figures: f.list };
  });
}
