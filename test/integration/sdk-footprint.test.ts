// What a component loads when it imports the SDK: the accessor's own modules, never the api-types barrel (the gate
// rules of every Kubernetes minor, the kubelet's rules, preflight, the payload registry: ~2 MB of heap a component
// would carry for nothing), the runtime barrel, the operator's controller machinery or leader election. A real
// process imports the built package entry (dist/sdk/index.js) with a module hook recording every module it loads.
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../../control-plane/binaries.js';

describe('the SDK\'s footprint', () => {
  it('importing featuregate-coordinator/sdk loads none of the operator\'s modules', () => {
    const entry = pathToFileURL(join(packageRoot(), 'dist', 'sdk', 'index.js')).href;
    const script = `import { registerHooks } from 'node:module';
      const seen = [];
      registerHooks({ load(url, context, next) { seen.push(url); return next(url, context); } });
      await import(${JSON.stringify(entry)});
      process.stdout.write(JSON.stringify(seen));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    const ours = (JSON.parse(r.stdout) as string[]).filter((u) => u.includes('/dist/')).map((u) => u.slice(u.indexOf('/dist/') + 6));
    expect(ours).toContain('sdk/feature-gate-access.js');
    expect(ours).toContain('runtime/cache/reflector.js');
    for (const never of ['api-types/index.js', 'runtime/index.js', 'api-types/gate-rules.js', 'api-types/preflight.js', 'api-types/kubelet-config.js',
      'api-types/registry.js', 'runtime/controller/controller.js', 'runtime/controller/work-queue.js', 'runtime/leaderelection/leader-election.js']) expect(ours).not.toContain(never);
    expect(ours.filter((m) => m.startsWith('api-types/kubernetes-gates/') || m.startsWith('api-types/kubelet-config-rules/'))).toEqual([]);
  });
});
