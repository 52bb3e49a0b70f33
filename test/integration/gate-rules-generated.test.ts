// The generated gate rules (api-types/kubernetes-gates/) are what hack/update-gate-rules.mjs makes from each
// release's own files today: regenerating them changes nothing. (It fetches k8s.io/kubernetes and k8s.io/client-go
// of every supported minor from the Go module proxy: ~100 MB the first time, then the module cache.)
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../../control-plane/binaries.js';

describe('hack/update-gate-rules.mjs', () => {
  it('--check: every generated file is what the releases\' files give', () => {
    const r = spawnSync(process.execPath, [join(packageRoot(), 'hack', 'update-gate-rules.mjs'), '--check'], { encoding: 'utf8', timeout: 600_000 });
    expect(`${r.status} ${r.stdout}${r.stderr}`).toBe('0 generated gate rules up to date\n');
  }, 620_000);
});
