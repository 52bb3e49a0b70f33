// This package's version (from its package.json) and client-go-style User-Agent strings, so API audit
// logs and priority-and-fairness can tell our clients apart.
import { existsSync, readFileSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/** The featuregate-coordinator package version, found by walking up from this module. */
export function packageVersion(): string {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++, dir = dirname(dir)) {
    const p = join(dir, 'package.json');
    if (!existsSync(p)) continue;
    const pkg = JSON.parse(readFileSync(p, 'utf8')) as { name?: string; version?: string };
    if (pkg.name === 'featuregate-coordinator' && pkg.version) return (cached = pkg.version);
  }
  return (cached = '0.0.0');
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
