// Feeding a management cluster for tests of hosted mode: HostedControlPlanes valid against HyperShift's
// real CRD, their guest kubeconfig Secrets and their status (status.kubeConfig, status.versionStatus) as
// HyperShift publishes them. No HyperShift operator needed.
import {
  ConfigMapResource, HostedControlPlaneResource, NamespaceResource, ResourceClient, SecretResource, isConflict, retryOnConflict,
  type ClusterAccess,
} from '../../runtime/index.js';
import { FEATURE_GATE_CONFIGMAP, HCP_API_VERSION, type ConfigMap, type FeatureGateSpec, type HostedControlPlane } from '../../api-types/index.js';

export interface HostedControlPlaneInput {
  namespace: string;
  name: string;
  /** spec.configuration.featureGate (absent: no configuration, i.e. Default). */
  featureGate?: FeatureGateSpec;
  /** The guest kubeconfig text; stored in Secret `secretName` (default admin-kubeconfig), key `secretKey` (default kubeconfig). */
  kubeconfig?: string;
  secretName?: string;
  secretKey?: string;
  /** Publish status.kubeConfig (default true when kubeconfig is given). */
  publishKubeConfig?: boolean;
  /** status.versionStatus.desired.version, as HyperShift copies it from the guest. */
  desiredVersion?: string;
  /** status.controlPlaneVersion.desired (version and image), as HyperShift derives it from the HCP's release image. */
  releaseVersion?: string;
}

/** A guest kubeconfig whose server is a closed port on loopback: every connection attempt is refused at once. */
export const UNREACHABLE_GUEST_KUBECONFIG = JSON.stringify({
  apiVersion: 'v1', kind: 'Config', clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:1' } }],
  users: [{ name: 'u', user: { token: 'x' } }], contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }], 'current-context': 'c',
});

export function hostedControlPlane(input: Pick<HostedControlPlaneInput, 'namespace' | 'name' | 'featureGate'>): HostedControlPlane {
  return {
    apiVersion: HCP_API_VERSION, kind: 'HostedControlPlane', metadata: { name: input.name, namespace: input.namespace },
    spec: {
      dns: { baseDomain: 'example.com' },
      etcd: { managementType: 'Unmanaged', unmanaged: { endpoint: 'https://etcd-client:2379', tls: { clientSecret: { name: 'etcd-client' } } } },
      infraID: input.name, issuerURL: 'https://kubernetes.default.svc', platform: { type: 'None' }, pullSecret: { name: 'pull-secret' },
      releaseImage: 'quay.io/openshift-release-dev/ocp-release:4.22.0-x86_64', sshKey: { name: 'ssh-key' },
      services: ['APIServer', 'OAuthServer', 'Konnectivity', 'Ignition'].map((service) => ({ service, servicePublishingStrategy: { type: 'LoadBalancer' } })),
      ...(input.featureGate ? { configuration: { featureGate: input.featureGate } } : {}),
    },
  };
}

/** Creates the namespace unless it exists. */
export async function ensureNamespace(kc: ClusterAccess, namespace: string): Promise<void> {
  try {
    await new ResourceClient(kc, NamespaceResource).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  } catch (e) {
    if (!isConflict(e)) throw e;
  }
}

/** Writes (creates or replaces) the guest kubeconfig Secret. */
export async function putGuestKubeconfigSecret(
  kc: ClusterAccess,
  namespace: string,
  name: string,
  data: Record<string, string>,
): Promise<void> {
  const client = new ResourceClient(kc, SecretResource, undefined, { namespace });
  const body = {
    apiVersion: 'v1' as const,
    kind: 'Secret' as const,
    metadata: { name, namespace },
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  };
  await retryOnConflict(async () => {
    await client.upsert(name, (s) => (s ? { ...s, data: body.data } : body));
  });
}

/** Creates the HCP (and its namespace and Secret), then its status as HyperShift publishes it. */
export async function publishHostedControlPlane(kc: ClusterAccess, input: HostedControlPlaneInput): Promise<HostedControlPlane> {
  await ensureNamespace(kc, input.namespace);
  const secretName = input.secretName ?? 'admin-kubeconfig';
  const secretKey = input.secretKey ?? 'kubeconfig';
  if (input.kubeconfig !== undefined) await putGuestKubeconfigSecret(kc, input.namespace, secretName, { [secretKey]: input.kubeconfig });
  const client = new ResourceClient(kc, HostedControlPlaneResource, undefined, { namespace: input.namespace });
  const created = await client.create(hostedControlPlane(input));
  const publish = input.publishKubeConfig ?? input.kubeconfig !== undefined;
  return client.replaceStatus({
    ...created,
    status: {
      initialized: true, ready: true,
      ...(publish ? { kubeConfig: { name: secretName, key: secretKey } } : {}),
      ...(input.desiredVersion ? {
        versionStatus: {
          availableUpdates: null, observedGeneration: 1,
          desired: { version: input.desiredVersion, image: `quay.io/openshift-release-dev/ocp-release:${input.desiredVersion}-x86_64` },
          history: [],
        },
      } : {}),
      ...(input.releaseVersion ? { controlPlaneVersion: controlPlaneVersionStatus(input.releaseVersion) } : {}),
    },
  });
}

function controlPlaneVersionStatus(version: string): Record<string, unknown> {
  const image = `quay.io/openshift-release-dev/ocp-release:${version}-x86_64`;
  return { desired: { version, image }, history: [{ version, image, state: 'Completed', startedTime: '2026-01-01T00:00:00Z', completionTime: '2026-01-01T00:10:00Z' }], observedGeneration: 1 };
}

/** Sets the HCP's status.controlPlaneVersion to `version`, as HyperShift does when the HostedCluster's release changes. */
export async function setHostedReleaseVersion(
  kc: ClusterAccess,
  namespace: string,
  name: string,
  version: string,
): Promise<HostedControlPlane> {
  const client = new ResourceClient(kc, HostedControlPlaneResource, undefined, { namespace });
  return retryOnConflict(async () => {
    const hcp = await client.get(name);
    return client.replaceStatus({ ...hcp, status: { ...(hcp.status ?? {}), controlPlaneVersion: controlPlaneVersionStatus(version) } });
  });
}

/** Sets the HCP's spec.configuration.featureGate, as a HostedCluster change reaches it. */
export async function setHostedFeatureGate(
  kc: ClusterAccess,
  namespace: string,
  name: string,
  featureGate: FeatureGateSpec,
): Promise<HostedControlPlane> {
  const client = new ResourceClient(kc, HostedControlPlaneResource, undefined, { namespace });
  return retryOnConflict(async () => {
    const hcp = await client.get(name);
    return client.replace({ ...hcp, spec: { ...hcp.spec, configuration: { ...(hcp.spec.configuration ?? {}), featureGate } } });
  });
}

/** The `feature-gate` ConfigMap of an HCP namespace, or undefined. */
export async function readFeatureGateConfigMap(kc: ClusterAccess, namespace: string): Promise<ConfigMap | undefined> {
  return new ResourceClient(kc, ConfigMapResource, undefined, { namespace }).find(FEATURE_GATE_CONFIGMAP);
}
