#!/usr/bin/env bash
# Builds Helm (the version pinned in hack/helm/go.mod) from the Go module proxy into .cache/helm/<version>/helm,
# once; prints its path. Used by the chart tests (test/integration/helm.test.ts). HELM=<path> uses another.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
log() { printf '[helm %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
if [[ -n "${HELM:-}" ]]; then echo "$HELM"; exit 0; fi
version="$(go list -m -f '{{.Version}}' helm.sh/helm/v4)"
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
