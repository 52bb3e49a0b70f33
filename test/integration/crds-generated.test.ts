// deploy/crds is what hack/update-crds.mjs writes from the pinned openshift/api module and our layer
// (deploy/crds/layer/): regenerating changes nothing. And the check is red, naming the place, when a CRD's schema is
// changed by hand — a run of the real script on a copy of the files it reads.
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { packageRoot } from '../../control-plane/binaries.js';
// @ts-expect-error: a plain ESM script of hack/, no types
import { layered, schemaDifferences } from '../../hack/update-crds.mjs';
import { tempDirs } from '../support/temp.js';

const ROOT = packageRoot();
const tempDir = tempDirs();
const run = (root: string) => spawnSync(process.execPath, [join(root, 'hack', 'update-crds.mjs'), '--check'], { encoding: 'utf8', timeout: 300_000 });

describe('hack/update-crds.mjs', () => {
  it('--check: deploy/crds is what the pinned openshift/api and our layer give', () => {
    const r = run(ROOT);
    expect(`${r.status} ${r.stdout}${r.stderr}`).toMatch(/^0 openshift\/api v0\.0\.0-\d{14}-[0-9a-f]{12}\ngenerated CRDs up to date\n$/);
  }, 320_000);

  it('--check is red on a hand-made schema difference, and says where', () => {
    const root = tempDir('crds-check-');
    for (const p of ['hack/update-crds.mjs', 'hack/update-gate-rules.mjs', 'hack/openshift-api', 'deploy/crds']) cpSync(join(ROOT, p), join(root, p), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
    const file = join(root, 'deploy', 'crds', 'featuregates.config.openshift.io.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('- DevPreviewNoUpgrade\n', '- DevPreviewNoUpgrade\n                    - AnythingGoes\n'));
    const r = run(root);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('deploy/crds/featuregates.config.openshift.io.yaml: spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.featureSet.enum is');
    expect(r.stderr).toContain('deploy/crds/featuregates.config.openshift.io.yaml is not what hack/update-crds.mjs generates');
  }, 320_000);

  it('compares everything but the words: a description is ours, a rule or a default is upstream\'s', () => {
    const ours = parse(readFileSync(join(ROOT, 'deploy', 'crds', 'featuregates.config.openshift.io.yaml'), 'utf8'));
    const layer = parse(readFileSync(join(ROOT, 'deploy', 'crds', 'layer', 'featuregates.yaml'), 'utf8'));
    const upstream = structuredClone(ours); // what openshift/api publishes, but for the words and our layer
    const schema = (crd: typeof ours) => crd.spec.versions[0].schema.openAPIV3Schema;
    schema(upstream).properties.spec.description = 'other words';
    delete upstream.metadata.annotations['featuregate-coordinator.io/owner'];
    upstream.spec.versions[0].additionalPrinterColumns = undefined;
    delete upstream.spec.versions[0].additionalPrinterColumns;
    expect(schemaDifferences(ours, upstream, layer)).toEqual([]);
    schema(upstream).properties.spec['x-kubernetes-validations'][0].message = 'another message';
    expect(schemaDifferences(ours, upstream, layer).map((d: { path: string }) => d.path))
      .toEqual(['spec.versions[0].schema.openAPIV3Schema.properties.spec.x-kubernetes-validations[0].message']);
  });

  it('refuses a layer that leaves a field upstream describes without words, or describes a field upstream lacks', () => {
    const upstream = { metadata: { name: 'x' }, spec: { versions: [{ name: 'v1', schema: { openAPIV3Schema: { description: 'd', properties: { spec: { description: 'e', type: 'object' } } } } }] } };
    expect(() => layered(upstream, { descriptions: { '.': 'ours' } }, 'layer.yaml')).toThrow('layer.yaml: no description for spec (openshift/api describes it: "e")');
    expect(() => layered(upstream, { descriptions: { '.': 'a', spec: 'b', status: 'c' } }, 'layer.yaml')).toThrow('a description for status, which openshift/api\'s CRD does not describe');
    const crd = layered(upstream, { descriptions: { '.': 'a', spec: 'b' } }, 'layer.yaml');
    expect(crd.spec.versions[0].schema.openAPIV3Schema).toEqual({ description: 'a', properties: { spec: { description: 'b', type: 'object' } } });
  });
});
