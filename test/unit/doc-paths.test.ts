// Every path of this repository that README.md and docs/ name exists: a file or folder moved or removed takes its
// mentions with it (README once named deploy/kubernetes/ long after it was gone). A path is a backticked token that
// starts with one of the repository's top folders; placeholders (<x>, *, $X, {a,b}) are not paths. docs/benchmarks.md is a
// dated record of runs and names files as they were then; the docs also cite a few files of Kubernetes' own repository.
import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { readerDocs } from '../support/repo-files.js';

const TOPS = ['api-types/', 'runtime/', 'controllers/', 'sdk/', 'control-plane/', 'standalone/', 'hosted/', 'cmd/', 'hack/', 'test/', 'deploy/',
  'docs/', 'examples/', '.ci/'];
/** Paths in Kubernetes' repository (k8s.io/kubernetes) that the docs cite by name. */
const KUBERNETES_PATHS = new Set(['cmd/kubelet/app/server.go', 'test/compatibility_lifecycle/reference/versioned_feature_list.yaml']);

/** The repository paths a markdown text names (backticked), without a trailing `:line` or `#anchor`. */
function namedPaths(markdown: string): string[] {
  return [...markdown.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]!.replace(/[.,;:]+$/, '').replace(/[#:].*$/, ''))
    .filter((p) => TOPS.some((t) => p.startsWith(t)) && !/[*<>{}$]/.test(p));
}

describe('the paths README.md and docs/ name', () => {
  it('reads a path, not a placeholder or a command', () => {
    expect(namedPaths('see `runtime/cache/reflector.ts:12`, `deploy/crds/`, `hack/bench/<name>.ts`, `docs/x.md#y`, `npm test`, `cmd/*.ts`'))
      .toEqual(['runtime/cache/reflector.ts', 'deploy/crds/', 'docs/x.md']);
  });

  it('every one exists', () => {
    const missing = readerDocs().flatMap((f) => namedPaths(readFileSync(f, 'utf8')).filter((p) => !KUBERNETES_PATHS.has(p) && !existsSync(p)).map((p) => `${f}: ${p}`));
    expect(missing).toEqual([]);
  });
});
