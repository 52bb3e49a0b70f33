// The oldest Node this package supports (package.json "engines"), and the one-line refusal for code that
// needs it. Most commands run on older Node too (their HTTP client is node:http); what does not is
// @kubernetes/client-node — its undici dies on load below Node 22 — so only the paths that load it check.
export const MINIMUM_NODE = '22.19.0';

function numbers(v: string): number[] {
  return v.replace(/^v/, '').split('.').map((n) => Number.parseInt(n, 10) || 0);
}

/** Whether `version` (process.version's form, `v20.20.2`) is at least MINIMUM_NODE. */
export function nodeSupported(version: string = process.version): boolean {
  const have = numbers(version);
  const need = numbers(MINIMUM_NODE);
  for (let i = 0; i < need.length; i++) {
    if ((have[i] ?? 0) !== need[i]) return (have[i] ?? 0) > need[i]!;
  }
  return true;
}

export class NodeTooOldError extends Error {}

/** Throws, in one line, when `what` cannot run on this Node; says how to get one that can. */
export function requireSupportedNode(what: string, version: string = process.version): void {
  if (nodeSupported(version)) return;
  throw new NodeTooOldError(`${what} needs Node >= ${MINIMUM_NODE}, this is ${version}: run it with \`npx featuregates …\` in the project ` +
    '(npm ci installs Node 24 there), or install Node 22.19 or newer');
}
