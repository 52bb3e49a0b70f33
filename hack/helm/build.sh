#!/usr/bin/env bash
# Builds Helm (the version pinned in hack/helm/go.mod) from the Go module proxy into .cache/helm/<version>/helm,
# once; prints its path. Used by the chart tests (test/integration/helm.test.ts). HELM=<path> uses another.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
log() { printf '[helm %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
if [[ -n "${HELM:-}" ]]; then echo "$HELM"; exit 0; fi
# The pinned version, read from go.mod itself: a machine without Go still finds a Helm built before.
version="$(awk '$1 == "require" && $2 == "helm.sh/helm/v4" { print $3; exit } $1 == "helm.sh/helm/v4" { print $2; exit }' go.mod)"
[[ -n "$version" ]] || { log "hack/helm/go.mod requires no helm.sh/helm/v4"; exit 1; }
out="$(cd ../.. && pwd)/.cache/helm/$version/helm"
if [[ -x "$out" ]] && "$out" version --short 2>/dev/null | grep -q "^${version}"; then echo "$out"; exit 0; fi
command -v go >/dev/null || { log "Go >= 1.26 is needed to build Helm $version (or set HELM to a helm binary)"; exit 1; }
log "building Helm $version from Go modules (cold: a few minutes)"
t0=$(date +%s)
mkdir -p "$(dirname "$out")"
go build -trimpath -ldflags "-X helm.sh/helm/v4/internal/version.version=${version}" -o "$out.tmp" helm.sh/helm/v4/cmd/helm
mv "$out.tmp" "$out"
log "Helm $version built in $(( $(date +%s) - t0 )) s"
echo "$out"
