// The minimal relay of status-change.ts over HTTP/2 (node:http2): its ClusterVersion watch and its status
// PUTs are streams of one TLS connection, as client-go multiplexes them. An experiment for issue 12: does
// the transport's protocol explain the relay's cost over the raw path?
import { connect, constants, type ClientHttp2Session } from 'node:http2';
import type { RequestOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import type { FeatureGate } from '../../api-types/index.js';
import type { FeatureGateWatcher } from './fg-watcher.js';
import { lineSplitter } from '../../runtime/rest/watch-lines.js';
import { MAX_OBJECT_BYTES } from '../../runtime/rest/response-body.js';
import { prunedFor } from './status-change.js';

export async function startH2Relay(kc: KubeConfig, watcher: FeatureGateWatcher, name = 'h2'): Promise<{ stop(): Promise<void> }> {
  const server = kc.getCurrentCluster()!.server;
  const opts: RequestOptions = { headers: {} };
  await kc.applyToHTTPSOptions(opts);
  const auth = (opts.headers as Record<string, string>).Authorization ?? (opts.headers as Record<string, string>).authorization;
  const session: ClientHttp2Session = connect(server, { ca: opts.ca, cert: opts.cert, key: opts.key });
  const headers = (method: string, path: string) => ({
    [constants.HTTP2_HEADER_METHOD]: method, [constants.HTTP2_HEADER_PATH]: path, authorization: auth!, accept: 'application/json',
  });
  const put = (fg: FeatureGate) => {
    const body = JSON.stringify(fg);
    const s = session.request({ ...headers('PUT', '/apis/config.openshift.io/v1/featuregates/cluster/status'), 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    s.on('error', () => undefined);
    s.resume();
    s.end(body);
  };
  const watch = session.request(headers('GET', '/apis/config.openshift.io/v1/clusterversions?fieldSelector=metadata.name%3Dversion&watch=true'));
  let synced!: () => void;
  const ready = new Promise<void>((r) => { synced = r; });
  watch.setEncoding('utf8');
  watch.on('data', lineSplitter(MAX_OBJECT_BYTES, () => watch.destroy(), (line) => {
    const ev = JSON.parse(line) as { object: { status?: { history?: { version: string }[] } } };
    synced();
    const pruned = prunedFor(name, new Set((ev.object.status?.history ?? []).map((h) => h.version)), watcher.current());
    if (pruned) put(pruned);
  }));
  watch.on('error', () => undefined);
  await ready;
  return {
    async stop() {
      watch.close();
      await new Promise<void>((r) => session.close(() => r()));
    },
  };
}
