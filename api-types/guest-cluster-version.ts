// What the hosted coordinator keeps of a guest's ClusterVersion: the guest's admin writes that object, so the
// coordinator's cache holds only the fields its controllers read (the desired version, the history's entries)
// and never more history than a guest may have plus one — enough to tell that it has too much. A real
// ClusterVersion is tens of kilobytes (conditions, available and conditional updates, capabilities); a hostile
// one may be megabytes. Like client-go's cache transform: never write such a summary back, it is not the object.
import type { ClusterVersion, UpdateHistory } from './wire.js';

/** The most ClusterVersion history entries a guest may have (the cluster-version operator keeps 100). */
export const MAX_GUEST_HISTORY = 100;

const entry = (h: UpdateHistory): UpdateHistory => ({
  state: h.state, startedTime: h.startedTime, completionTime: h.completionTime, version: h.version, image: h.image, verified: h.verified,
});

/** The fields of a guest ClusterVersion the coordinator reads, with at most MAX_GUEST_HISTORY + 1 history entries. */
export function summarizeGuestClusterVersion(cv: ClusterVersion): ClusterVersion {
  const { name, namespace, uid, resourceVersion, generation } = cv.metadata;
  const s = cv.status;
  return {
    apiVersion: cv.apiVersion,
    kind: 'ClusterVersion',
    metadata: {
      ...(name !== undefined ? { name } : {}),
      ...(namespace ? { namespace } : {}),
      ...(uid ? { uid } : {}),
      ...(resourceVersion ? { resourceVersion } : {}),
      ...(generation !== undefined ? { generation } : {}),
    },
    spec: { clusterID: cv.spec.clusterID },
    ...(s
      ? {
          status: {
            ...(s.desired ? { desired: { version: s.desired.version, image: s.desired.image } } : {}),
            history: s.history.slice(0, MAX_GUEST_HISTORY + 1).map(entry),
          },
        }
      : {}),
  };
}

