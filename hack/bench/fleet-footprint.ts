// hosted-fleet's footprint: the replicas' RSS at each step as HCPs are added (none, unreachable, hostile, hollow, 1 /
// 10 / all real reachable ones), and from it the RSS one more HCP of each kind costs.
import { sum } from './stats.js';

/** One step: what was added, the HCPs by then, the replicas' RSS (MB) then. */
export type FootprintStep = [what: string, hcps: number, rssMB: number];

/** RSS per HCP of each kind from the steps (the first two are 0 HCPs and the unreachable ones): what to print and the row. */
export function rssPerHcp(f: FootprintStep[]): { lines: string[]; row: { reachable: number; hostile?: number } } {
  const per = (a: FootprintStep, b: FootprintStep) => (b[1] === a[1] ? 'n/a' : ((b[2] - a[2]) / (b[1] - a[1])).toFixed(3));
  // Least-squares slope over the reachable steps (1 / 10 / GUESTS): the cost of one more reachable guest.
  const reachable = f.filter(([what]) => what.endsWith('reachable') && what.startsWith('+'));
  const pts = reachable.map(([, n, mb]) => [n, mb] as const);
  const mx = sum(pts.map(([x]) => x)) / pts.length;
  const my = sum(pts.map(([, y]) => y)) / pts.length;
  const slope = pts.length > 1 ? sum(pts.map(([x, y]) => (x - mx) * (y - my))) / sum(pts.map(([x]) => (x - mx) ** 2)) : NaN;
  const hostileStep = f.find(([what]) => what.endsWith('hostile'));
  const beforeReachable = hostileStep ?? f[1]!;
  const lines = [`RSS per HCP: unreachable ${per(f[0]!, f[1]!)} MB; ${hostileStep ? `hostile ${per(f[1]!, hostileStep)} MB; ` : ''}` +
    `reachable ${reachable.length ? per(beforeReachable, reachable[reachable.length - 1]!) : 'n/a'} MB on average, ` +
    `${slope.toFixed(3)} MB slope over the reachable steps ` +
    `(${f.map(([what, , mb]) => `${what}: ${mb.toFixed(1)} MB`).join(', ')}; goal ≤ 1 MB per HCP)`];
  const hostilePer = hostileStep ? (hostileStep[2] - f[1]![2]) / (hostileStep[1] - f[1]![1]) : undefined;
  // With hollow guests, a reachable HCP's cost is their step's (thousands of them), not the slope over the few real ones.
  const hollowStep = f.find(([what]) => what.includes('hollow'));
  const reachablePer = hollowStep ? (hollowStep[2] - beforeReachable[2]) / (hollowStep[1] - beforeReachable[1]) : slope;
  if (hollowStep) lines.push(`RSS per hollow (reachable) HCP: ${reachablePer.toFixed(3)} MB (goal ≤ 0.5 MB)`);
  return { lines, row: { reachable: reachablePer, ...(hostilePer !== undefined ? { hostile: hostilePer } : {}) } };
}
