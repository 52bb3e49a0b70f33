// Who may read /metrics, decided by the API server as controller-runtime's
// WithAuthenticationAndAuthorization filter does: the bearer token is authenticated with a TokenReview,
// then the user is authorized with a SubjectAccessReview for the non-resource URL (the request path) and
// the lower-cased HTTP method as verb. 401 without a valid token, 403 when the review denies, 500 when the
// API server cannot answer. Decisions are cached for 10 s per token + path + verb (as the delegating
// authenticator caches TokenReviews), so a scrape every 30 s costs at most two API requests.
import type { ClusterAccess } from '../rest/kube-config.js';
import type { Registry } from 'prom-client';
import { apiErrorMessage } from '../rest/api-errors.js';
import { ResourceClient } from '../rest/resource-client.js';
import { SubjectAccessReviewResource, TokenReviewResource } from '../rest/resources.js';

export interface AuthDecision {
  code: 200 | 401 | 403 | 500;
  reason: string;
}

export type RequestAuthorizer = (authorization: string | undefined, path: string, method: string) => Promise<AuthDecision>;

export function apiServerAuthorizer(
  kc: ClusterAccess,
  options: { metrics?: Registry; cacheMs?: number; now?: () => number } = {},
): RequestAuthorizer {
  const tokenReviews = new ResourceClient(kc, TokenReviewResource, options.metrics);
  const accessReviews = new ResourceClient(kc, SubjectAccessReviewResource, options.metrics);
  const cache = new Map<string, { until: number; decision: AuthDecision }>();
  const now = options.now ?? (() => Date.now());
  return async (authorization, path, method) => {
    const m = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
    if (!m) return { code: 401, reason: 'Unauthorized: a bearer token is required' };
    const token = m[1]!;
    const verb = method.toLowerCase();
    const key = `${token}\n${path}\n${verb}`;
    const hit = cache.get(key);
    if (hit && hit.until > now()) return hit.decision;
    let decision: AuthDecision;
    try {
      const tr = await tokenReviews.create({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', metadata: {}, spec: { token } });
      const user = tr.status?.user;
      if (!tr.status?.authenticated || !user?.username) {
        decision = { code: 401, reason: 'Unauthorized: the token was not accepted' };
      } else {
        const sar = await accessReviews.create({
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          metadata: {},
          spec: {
            user: user.username,
            ...(user.uid ? { uid: user.uid } : {}),
            groups: user.groups ?? [],
            ...(user.extra ? { extra: user.extra } : {}),
            nonResourceAttributes: { path, verb },
          },
        });
        decision = sar.status?.allowed
          ? { code: 200, reason: 'allowed' }
          : {
              code: 403,
              reason: `Forbidden: user "${user.username}" may not ${verb} ${path}${sar.status?.reason ? ` (${sar.status.reason})` : ''}`,
            };
      }
    } catch (e) {
      return { code: 500, reason: `could not review the request with the API server: ${apiErrorMessage(e)}` };
    }
    if (cache.size > 1000) cache.clear();
    cache.set(key, { until: now() + (options.cacheMs ?? 10_000), decision });
    return decision;
  };
}
