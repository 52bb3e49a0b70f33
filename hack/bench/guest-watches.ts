// What a hosted replica watches in each guest, as the watch-floor and engage-floor benchmarks ask for it with node's
// built-ins: FeatureGate/cluster, ClusterVersion/version and ClusterOperator/config-operator, each by name with
// bookmarks, and the least a watch client does with the stream (split into lines, each parsed as JSON).
export const GUEST_GROUP_PATH = '/apis/config.openshift.io/v1';
export const GUEST_WATCHES = [['featuregates', 'cluster'], ['clusterversions', 'version'], ['clusteroperators', 'config-operator']] as const;

/** The query that selects one object by name. */
export const nameSelector = (name: string): string => `fieldSelector=${encodeURIComponent(`metadata.name=${name}`)}`;

/** The path of a watch of one object by name, with bookmarks; from `resourceVersion` when given. */
export function guestWatchPath(resource: string, name: string, o: { resourceVersion?: string; timeoutSeconds?: number } = {}): string {
  const from = o.resourceVersion !== undefined ? `&resourceVersion=${o.resourceVersion}` : '';
  const timeout = o.timeoutSeconds !== undefined ? `&timeoutSeconds=${o.timeoutSeconds}` : '';
  return `${GUEST_GROUP_PATH}/${resource}?watch=true&allowWatchBookmarks=true${timeout}${from}&${nameSelector(name)}`;
}

/** A watch stream's data handler: each whole line parsed as JSON and handed to `onEvent`. */
export function watchLines(onEvent: (event: { object?: { metadata?: { resourceVersion?: string } } }) => void): (chunk: Buffer) => void {
  let rest = '';
  return (chunk) => {
    rest += chunk.toString('utf8');
    for (let nl = rest.indexOf('\n'); nl >= 0; nl = rest.indexOf('\n')) {
      const line = rest.slice(0, nl);
      rest = rest.slice(nl + 1);
      onEvent(JSON.parse(line) as { object?: { metadata?: { resourceVersion?: string } } });
    }
  };
}
