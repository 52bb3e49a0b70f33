#!/usr/bin/env bash
# Builds kube-apiserver, etcd and kubectl from the Go module proxy into a cache folder keyed by version.
#
#   hack/envtest/build.sh                    build if needed, print the bin folder on the last line of stdout
#   hack/envtest/build.sh --with-components  also kube-controller-manager, kube-scheduler and kubelet (this project's
#                                            `verify --component` tests and the gate and kubelet-configuration
#                                            oracles; SDK users' control planes need none of them)
#   hack/envtest/build.sh --kubernetes 1.37  the binaries of another Kubernetes minor, from the tool module
#                                            hack/envtest/kubernetes-1.37/ (the gate oracles at 1.37; not for tests)
#
# Rebuilds only when a binary is missing or reports another version (binaries built before are found without Go).
# If KUBEBUILDER_ASSETS names a folder holding kube-apiserver and etcd, that folder is used and nothing is built;
# with --kubernetes X.Y, KUBEBUILDER_ASSETS_X_Y does the same for that minor (with --with-components, the folder
# must hold kube-controller-manager, kube-scheduler and kubelet too).
# Progress goes to stderr; the last stdout line is the folder with the binaries.
set -euo pipefail

with_components=false
kubernetes=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --with-components) with_components=true ;;
    --kubernetes) kubernetes="${2:-}"; shift ;;
    *) echo "usage: $0 [--with-components] [--kubernetes X.Y]" >&2; exit 2 ;;
  esac
  shift
done

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
module="$here"
if [[ -n "$kubernetes" && -d "$here/kubernetes-$kubernetes" ]]; then
  module="$here/kubernetes-$kubernetes"
elif [[ -n "$kubernetes" && "$(awk '$1=="k8s.io/kubernetes" && $2 ~ /^v/ {print $2; exit}' "$here/go.mod")" != "v$kubernetes".* ]]; then
  echo "no tool module for Kubernetes $kubernetes: hack/envtest/go.mod pins $(awk '$1=="k8s.io/kubernetes" && $2 ~ /^v/ {print $2; exit}' "$here/go.mod"), and hack/envtest/kubernetes-$kubernetes/ does not exist" >&2
  exit 2
fi

log() { printf '[envtest %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

if [[ -n "${KUBEBUILDER_ASSETS:-}" && "$module" == "$here" ]]; then
  for b in kube-apiserver etcd; do
    if [[ ! -x "$KUBEBUILDER_ASSETS/$b" ]]; then
      log "KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS has no executable '$b'; unset it to build from Go modules"
      exit 1
    fi
  done
  log "using binaries from KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS"
  echo "$KUBEBUILDER_ASSETS"
  exit 0
fi

# Another minor's binaries from a folder of your own: KUBEBUILDER_ASSETS_1_37 for --kubernetes 1.37.
other_assets="KUBEBUILDER_ASSETS_${kubernetes//./_}"
if [[ -n "$kubernetes" && -n "${!other_assets:-}" ]]; then
  for b in kube-apiserver etcd $($with_components && echo kube-controller-manager kube-scheduler kubelet); do
    if [[ ! -x "${!other_assets}/$b" ]]; then
      log "$other_assets=${!other_assets} has no executable '$b'; unset it to build from Go modules"
      exit 1
    fi
  done
  log "using Kubernetes $kubernetes binaries from $other_assets=${!other_assets}"
  echo "${!other_assets}"
  exit 0
fi

cd "$module"
k8s_version="$(awk '$1=="k8s.io/kubernetes" && $2 ~ /^v/ {print $2; exit}' go.mod)"
etcd_version="$(awk '$1=="go.etcd.io/etcd/server/v3" {print $2; exit}' go.mod)"
if [[ -z "$k8s_version" || -z "$etcd_version" ]]; then
  log "cannot read the pinned k8s.io/kubernetes or etcd version from $module/go.mod"
  exit 1
fi
minor="$(echo "$k8s_version" | cut -d. -f2)"
bin="${ENVTEST_CACHE_DIR:-$root/.cache/envtest}/k8s-${k8s_version}-etcd-${etcd_version}"
mkdir -p "$bin"

# The version output is captured before it is matched: `cmd | grep -q` under pipefail fails at random when
# grep exits at the first match and cmd dies of SIGPIPE — which made concurrent test runs rebuild (and
# replace) binaries other tests were running.
has_line() { local out; out="$("$@" 2>/dev/null)" || return 1; grep -qx -- "$want" <<<"$out"; }
kubectl_ok() { [[ -x "$bin/kubectl" ]] && want="Client Version: $k8s_version" has_line "$bin/kubectl" version --client; }
apiserver_ok() { [[ -x "$bin/kube-apiserver" ]] && want="Kubernetes $k8s_version" has_line "$bin/kube-apiserver" --version; }
etcd_ok() { [[ -x "$bin/etcd" ]] && want="etcd Version: ${etcd_version#v}" has_line "$bin/etcd" --version; }
component_ok() { [[ -x "$bin/$1" ]] && want="Kubernetes $k8s_version" has_line "$bin/$1" --version; }

export CGO_ENABLED=0
ldflags_common="-s -w"
ldflags_common+=" -X k8s.io/component-base/version.gitVersion=$k8s_version"
ldflags_common+=" -X k8s.io/component-base/version.gitMajor=1"
ldflags_common+=" -X k8s.io/component-base/version.gitMinor=$minor"
ldflags_common+=" -X k8s.io/component-base/version.gitTreeState=clean"
ldflags_common+=" -X k8s.io/client-go/pkg/version.gitVersion=$k8s_version"
fake_cri_ok() { [[ "$module" != "$here" || -x "$bin/fake-cri" ]]; }
components_ok() { ! $with_components || { component_ok kube-controller-manager && component_ok kube-scheduler && component_ok kubelet && fake_cri_ok; }; }
if apiserver_ok && etcd_ok && kubectl_ok && components_ok; then
  echo "$bin"   # warm cache: nothing to do, nothing to say
  exit 0
fi

# Binaries built before are found without Go (above); building needs it.
if ! command -v go >/dev/null 2>&1; then
  log "Go is not installed or not on PATH. The test control plane (kube-apiserver + etcd) is built from Go modules:"
  log "install Go >= 1.26, or set KUBEBUILDER_ASSETS to a folder holding kube-apiserver and etcd (with --kubernetes X.Y,"
  log "KUBEBUILDER_ASSETS_X_Y to a folder holding that minor's binaries)."
  exit 1
fi

if apiserver_ok; then
  log "kube-apiserver $k8s_version already built in $bin"
else
  log "downloading Go modules (cold: a few minutes)"
  go mod download
  log "building kube-apiserver $k8s_version (cold: about 4 minutes on 2 cores, more on slower machines; later runs reuse the Go build cache)"
  start=$SECONDS
  go build -trimpath -ldflags "$ldflags_common" -o "$bin/kube-apiserver.tmp" k8s.io/kubernetes/cmd/kube-apiserver
  mv "$bin/kube-apiserver.tmp" "$bin/kube-apiserver"
  log "kube-apiserver built in $((SECONDS - start)) s"
  apiserver_ok || { log "built kube-apiserver does not report 'Kubernetes $k8s_version': $("$bin/kube-apiserver" --version 2>&1)"; exit 1; }
fi

if etcd_ok; then
  log "etcd $etcd_version already built in $bin"
else
  log "building etcd $etcd_version (cold: under a minute)"
  start=$SECONDS
  go build -trimpath -ldflags "-s -w" -o "$bin/etcd.tmp" go.etcd.io/etcd/server/v3
  mv "$bin/etcd.tmp" "$bin/etcd"
  log "etcd built in $((SECONDS - start)) s"
  etcd_ok || { log "built etcd does not report version $etcd_version: $("$bin/etcd" --version 2>&1 | head -1)"; exit 1; }
fi

if kubectl_ok; then
  log "kubectl $k8s_version already built in $bin"
else
  log "building kubectl $k8s_version (for kustomize rendering and apply tests; under a minute after kube-apiserver)"
  start=$SECONDS
  go build -trimpath -ldflags "$ldflags_common" -o "$bin/kubectl.tmp" k8s.io/kubernetes/cmd/kubectl
  mv "$bin/kubectl.tmp" "$bin/kubectl"
  log "kubectl built in $((SECONDS - start)) s"
  kubectl_ok || { log "built kubectl does not report 'Client Version: $k8s_version'"; exit 1; }
fi

# kube-controller-manager, kube-scheduler and kubelet: the other components whose running gates `featuregates verify`
# reads (test/integration/verify-components.test.ts) and whose verdicts judge the gate rules (gate-rules-oracle, and
# the kubelet's configuration rules: kubelet-config-oracle); most of their packages are already built for kube-apiserver.
$with_components && for component in kube-controller-manager kube-scheduler kubelet; do
  if component_ok "$component"; then
    log "$component $k8s_version already built in $bin"
    continue
  fi
  log "building $component $k8s_version (cold, after kube-apiserver, on 2 cores: kube-controller-manager 92 s, kube-scheduler 9 s, kubelet 20 s)"
  start=$SECONDS
  go build -trimpath -ldflags "$ldflags_common" -o "$bin/$component.tmp" "k8s.io/kubernetes/cmd/$component"
  mv "$bin/$component.tmp" "$bin/$component"
  log "$component built in $((SECONDS - start)) s"
  component_ok "$component" || { log "built $component does not report 'Kubernetes $k8s_version'"; exit 1; }
done

# fake-cri: k8s.io/cri-client's in-memory CRI on a unix socket, so that the kubelet runs here as a node of a test
# control plane without a container runtime (the verify tests' kubelets; hack/envtest/fake-cri/main.go).
if $with_components && ! fake_cri_ok; then
  log "building fake-cri (seconds after the kubelet)"
  go build -trimpath -ldflags "-s -w" -o "$bin/fake-cri.tmp" ./fake-cri
  mv "$bin/fake-cri.tmp" "$bin/fake-cri"
fi

echo "$bin"
