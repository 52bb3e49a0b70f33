// The image's SPDX 2.3 JSON SBOM, built by hack/image/build.sh from what went into the root filesystem:
// the app's npm packages (`npm sbom` over the staged /app with its lockfile: names, versions, licenses,
// checksums), the Debian packages mmdebstrap extracted (name_version_arch of each .deb it fetched; their
// licences are Debian copyright files, not machine-readable, so licenseDeclared is NOASSERTION and the comment
// names the file, which the image keeps), and the Node binary (MIT). One image package contains them all.
// npm packages the build trimmed away afterwards (@types) are left out: the SBOM lists what the image holds.
//   node hack/image/sbom.mjs <app dir> <npm-sbom.json> <debs.txt> <node version> <arch> <image> <out.json> [<out2.json> …]
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [appDir, npmSbomPath, debsPath, nodeVersion, arch, image, ...outs] = process.argv.slice(2);
const doc = JSON.parse(readFileSync(npmSbomPath, 'utf8'));
const kept = new Set(doc.packages.filter((p) => !p.packageFileName || existsSync(join(appDir, p.packageFileName))).map((p) => p.SPDXID));
doc.packages = doc.packages.filter((p) => kept.has(p.SPDXID));
doc.relationships = doc.relationships.filter((r) => [r.spdxElementId, r.relatedSpdxElement].every((x) => x === 'SPDXRef-DOCUMENT' || kept.has(x)));
const id = (s) => s.replace(/[^A-Za-z0-9.-]/g, '-');
const appRoot = doc.documentDescribes[0];

const debs = readFileSync(debsPath, 'utf8').split('\n').filter((l) => l.endsWith('.deb')).map((f) => {
  const [name, version, debArch] = f.replace(/\.deb$/, '').split('_');
  return { name, version: decodeURIComponent(version.replace(/%3a/gi, ':')), arch: debArch };
});
const debPackages = debs.map((d) => ({
  name: d.name, SPDXID: `SPDXRef-Package-deb-${id(d.name)}-${id(d.version)}`, versionInfo: d.version,
  supplier: 'Organization: Debian', downloadLocation: 'NOASSERTION', filesAnalyzed: false,
  licenseConcluded: 'NOASSERTION', licenseDeclared: 'NOASSERTION',
  licenseComments: `Debian copyright file (not machine-readable), shipped in the image at /usr/share/doc/${d.name}/copyright`,
  externalRefs: [{ referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: `pkg:deb/debian/${d.name}@${encodeURIComponent(d.version)}?arch=${d.arch}&distro=debian-12` }],
}));
const node = {
  name: 'node', SPDXID: `SPDXRef-Package-node-${id(nodeVersion)}`, versionInfo: nodeVersion.replace(/^v/, ''),
  supplier: 'Organization: OpenJS Foundation', downloadLocation: `https://registry.npmjs.org/node-linux-${arch}/-/node-linux-${arch}-${nodeVersion.replace(/^v/, '')}.tgz`,
  filesAnalyzed: false, licenseConcluded: 'MIT', licenseDeclared: 'MIT', comment: 'the Node.js binary at /usr/local/bin/node, from the node-linux-' + arch + ' npm package',
  externalRefs: [{ referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: `pkg:npm/node-linux-${arch}@${nodeVersion.replace(/^v/, '')}` }],
};
const imagePackage = {
  name: image, SPDXID: 'SPDXRef-Package-image', versionInfo: image.split(':').pop(), primaryPackagePurpose: 'CONTAINER',
  downloadLocation: 'NOASSERTION', filesAnalyzed: false, licenseConcluded: 'NOASSERTION', licenseDeclared: 'NOASSERTION',
  comment: `OCI image for linux/${arch === 'x64' ? 'amd64' : arch}: Debian 12 libraries (no shell), Node, and the app in /app`,
};
doc.name = `${image} (linux/${arch === 'x64' ? 'amd64' : arch})`;
doc.documentDescribes = [imagePackage.SPDXID];
doc.packages = [imagePackage, ...doc.packages, ...debPackages, node];
doc.relationships = [
  { spdxElementId: 'SPDXRef-DOCUMENT', relatedSpdxElement: imagePackage.SPDXID, relationshipType: 'DESCRIBES' },
  ...doc.relationships.filter((r) => !(r.spdxElementId === 'SPDXRef-DOCUMENT' && r.relationshipType === 'DESCRIBES')),
  ...[appRoot, ...debPackages.map((p) => p.SPDXID), node.SPDXID].map((x) => ({ spdxElementId: imagePackage.SPDXID, relatedSpdxElement: x, relationshipType: 'CONTAINS' })),
];
for (const out of outs) writeFileSync(out, `${JSON.stringify(doc, null, 2)}\n`);
