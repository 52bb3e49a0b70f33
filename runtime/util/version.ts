// This package's version (from its package.json) and client-go-style User-Agent strings, so API audit
// logs and priority-and-fairness can tell our clients apart.
import { readFileSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/** The package root (the folder holding our package.json), from sources or from dist/. */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      if ((JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string }).name === 'featuregate-coordinator') return dir;
    } catch { /* no package.json here */ }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the featuregate-coordinator package root');
    dir = parent;
  }
}

/** The featuregate-coordinator package version, from its package.json. */
export function packageVersion(): string {
  if (cached) return cached;
  try {
    const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version?: string };
    return (cached = pkg.version ?? '0.0.0');
  } catch {
    return (cached = '0.0.0');
  }
}

const GOARCH: Record<string, string> = { x64: 'amd64', arm64: 'arm64', arm: 'arm', ia32: '386', ppc64: 'ppc64le', s390x: 's390x' };

/** `<name>/<version> (<os>/<arch>)`, as client-go builds it (Go's names for os and arch). */
export function userAgent(name: string, version: string = packageVersion()): string {
  return `${name}/${version} (${platform()}/${GOARCH[arch()] ?? arch()})`;
}

/** What an SDK accessor sends: `<component>/<version> featuregate-coordinator-sdk/<sdk version>`. */
export function sdkUserAgent(component: string, componentVersion: string): string {
  return `${component}/${componentVersion} featuregate-coordinator-sdk/${packageVersion()}`;
}
