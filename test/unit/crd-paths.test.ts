// crdPaths as envtest reads CRDDirectoryPaths: files or folders, non-CRD documents skipped, a missing path
// skipped unless asked to fail.
import { describe, expect, it } from '@jest/globals';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readCRDs } from '../../control-plane/crd-install.js';
import { tempDirs } from '../support/temp.js';

const tempDir = tempDirs();
const crd = (plural: string) => `apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: ${plural}.example.com\nspec:\n  group: example.com\n  names: {plural: ${plural}}\n  versions: []\n`;

describe('readCRDs', () => {
  it('reads folders (not recursively) and files, skipping documents that are not CRDs', () => {
    const dir = tempDir('fgc-crds-');
    mkdirSync(join(dir, 'nested'));
    writeFileSync(join(dir, 'a.yaml'), `${crd('as')}---\n${crd('bs')}`);
    writeFileSync(join(dir, 'kustomization.yaml'), 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [a.yaml]\n');
    writeFileSync(join(dir, 'notes.txt'), 'not yaml: [');
    writeFileSync(join(dir, 'nested', 'c.yaml'), crd('cs'));
    expect(readCRDs([dir]).map((c) => c.metadata.name)).toEqual(['as.example.com', 'bs.example.com']);
    expect(readCRDs([join(dir, 'nested', 'c.yaml')]).map((c) => c.metadata.name)).toEqual(['cs.example.com']);
  });

  it('skips a missing path, or fails on it with errorIfMissing (envtest\'s ErrorIfCRDPathMissing)', () => {
    const missing = join(tempDir('fgc-crds-'), 'nope');
    expect(readCRDs([missing])).toEqual([]);
    expect(() => readCRDs([missing], true)).toThrow(`CRD path ${missing}: `);
  });
});
