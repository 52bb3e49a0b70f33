// `featuregates simulate upgrade --to` takes a full payload version (X.Y.Z, optionally with a pre-release
// suffix, as the cluster-version operator records it): a short one such as 4.24 used to be accepted and
// wrote a "4.24" status entry (issue 24, item 7). Refused as a usage error before any cluster is contacted.
import { describe, expect, it } from '@jest/globals';
import { runCLI } from '../support/cli.js';

describe('simulate upgrade --to', () => {
  it.each(['4.24', '4', 'v4.24', '4.24.x'])('refuses %s with exit 2 and says what it wants', (to) => {
    const r = runCLI(['simulate', 'upgrade', '--to', to], { KUBECONFIG: '/nonexistent/kubeconfig' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--to: expected a full payload version X.Y.Z (e.g. 4.24.0), got ${JSON.stringify(to)}`);
  });

  it('accepts X.Y.Z and pre-release forms (then fails only on the missing cluster)', () => {
    for (const to of ['4.24.0', '4.24.0-ec.2', '4.23.0-0.nightly-2026-11-01-000000']) {
      const r = runCLI(['simulate', 'upgrade', '--to', to], { KUBECONFIG: '/nonexistent/kubeconfig' });
      expect(r.stderr).not.toContain('expected a full payload version');
      expect(r.code).toBe(1);
    }
  });

  it('refuses a --payload-dir the rolled operator could not read, before any cluster is contacted', () => {
    const r = runCLI(['simulate', 'upgrade', '--to', '4.24.0', '--payload-dir', '/nonexistent/payload'], { KUBECONFIG: '/nonexistent/kubeconfig' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('cannot read payload manifest folder /nonexistent/payload');
    expect(r.stderr).not.toContain('kubeconfig');
  });
});
