// Which local cluster `simulate` and `status` use without a kubeconfig: the newest running `featuregates
// start`, saying which and that others run; records of processes that are gone are ignored and removed.
import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeSupported } from '../../runtime/index.js';
import { chooseCluster, recordLocalCluster, runningLocalClusters } from '../../control-plane/local-cluster-record.js';

function withDir<T>(fn: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'fgc-records-'));
  try {
    return fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function record(dir: string, pid: number, startedAt: string): string {
  const kubeconfig = join(dir, `kubeconfig-${pid}`);
  writeFileSync(kubeconfig, '{}');
  writeFileSync(join(dir, `featuregates-start.${pid}.json`), JSON.stringify({ pid, kubeconfig, server: `https://127.0.0.1:${pid}`, startedAt }));
  return kubeconfig;
}

describe('local cluster records', () => {
  it('an explicit kubeconfig or $KUBECONFIG wins; without a running start there is no choice', () => withDir((dir) => {
    record(dir, process.pid, '2026-01-01T00:00:00.000Z');
    expect(chooseCluster('/k', {}, dir)).toEqual({ kubeconfig: '/k' });
    expect(chooseCluster(undefined, { KUBECONFIG: '/env' }, dir)).toEqual({ kubeconfig: undefined });
    expect(chooseCluster(undefined, { KUBERNETES_SERVICE_HOST: '10.0.0.1' }, dir)).toEqual({ kubeconfig: undefined });
    rmSync(join(dir, `featuregates-start.${process.pid}.json`));
    expect(chooseCluster(undefined, {}, dir)).toEqual({});
  }));

  it('one start: its cluster, named in the note', () => withDir((dir) => {
    const kc = record(dir, process.pid, '2026-01-01T00:00:00.000Z');
    expect(chooseCluster(undefined, {}, dir)).toEqual({
      kubeconfig: kc, note: `using the local cluster of \`featuregates start\` (pid ${process.pid}) at https://127.0.0.1:${process.pid}`,
    });
  }));

  it('two starts: the newest, and the note says both pids and how to pick the other', async () => {
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      await withDir((dir) => {
        record(dir, other.pid!, '2026-01-01T00:00:00.000Z');
        const newest = record(dir, process.pid, '2026-01-02T00:00:00.000Z');
        const choice = chooseCluster(undefined, {}, dir);
        expect(choice.kubeconfig).toBe(newest);
        expect(choice.note).toContain(`(pid ${process.pid})`);
        expect(choice.note).toContain(`2 are running (pids ${process.pid}, ${other.pid}), this is the newest: pass --kubeconfig to pick another`);
      });
    } finally {
      other.kill('SIGKILL');
    }
  });

  it('a record whose process is gone (or whose kubeconfig is) is skipped and removed', async () => {
    const gone = spawn(process.execPath, ['-e', '']);
    await new Promise((r) => gone.once('exit', r));
    withDir((dir) => {
      record(dir, gone.pid!, '2026-01-03T00:00:00.000Z');
      const kc = record(dir, process.pid, '2026-01-01T00:00:00.000Z');
      expect(runningLocalClusters(dir).map((r) => r.pid)).toEqual([process.pid]);
      expect(existsSync(join(dir, `featuregates-start.${gone.pid}.json`))).toBe(false);
      rmSync(kc);
      expect(runningLocalClusters(dir)).toEqual([]);
      expect(readdirSync(dir).filter((f) => f.startsWith('featuregates-start.'))).toEqual([]);
    });
  });

  it('recordLocalCluster writes this process\'s record and its remover deletes it', () => withDir((dir) => {
    const kc = join(dir, 'kubeconfig');
    writeFileSync(kc, '{}');
    const remove = recordLocalCluster(kc, 'https://127.0.0.1:6443', dir);
    expect(runningLocalClusters(dir)).toEqual([expect.objectContaining({ pid: process.pid, kubeconfig: kc, server: 'https://127.0.0.1:6443' })]);
    remove();
    expect(runningLocalClusters(dir)).toEqual([]);
  }));
});

describe('nodeSupported', () => {
  it('compares with 22.19.0 numerically', () => {
    expect(nodeSupported('v20.20.2')).toBe(false);
    expect(nodeSupported('v22.18.9')).toBe(false);
    expect(nodeSupported('v22.19.0')).toBe(true);
    expect(nodeSupported('v22.100.0')).toBe(true);
    expect(nodeSupported('v24.0.0')).toBe(true);
    expect(nodeSupported('v3.0.0')).toBe(false);
  });
});
