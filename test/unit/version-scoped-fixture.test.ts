// The version-scoped payload fixture is exactly what hack/fixtures/version-scoped.mjs builds from the real
// release-5.1 folder (no hand edits).
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
// @ts-expect-error: a plain .mjs script, no declarations
import { versionScopedFiles } from '../../hack/fixtures/version-scoped.mjs';

describe('version-scoped fixture', () => {
  it('matches its generator', () => {
    const dir = join('test', 'fixtures', 'openshift-api', 'payload-featuregates', 'version-scoped');
    const want = versionScopedFiles() as Map<string, string>;
    expect(readdirSync(dir).sort()).toEqual([...want.keys()].sort());
    for (const [f, text] of want) expect(readFileSync(join(dir, f), 'utf8')).toBe(text);
  });
});
