#!/usr/bin/env bash
# Prints the folder of the Prometheus operator's own CRDs (PrometheusRule, ServiceMonitor, …) of the release below,
# from the Go module proxy (github.com/prometheus-operator/prometheus-operator, example/prometheus-operator-crd);
# downloaded once into the module cache. The monitoring tests install them into a real kube-apiserver to check
# the PrometheusRule and ServiceMonitor objects this project ships (test/integration/monitoring-install.test.ts).
set -euo pipefail
version=v0.85.0
module=github.com/prometheus-operator/prometheus-operator
# Without Go, the module cache a Go run filled before ($GOMODCACHE, else $GOPATH/pkg/mod, else ~/go/pkg/mod).
if command -v go >/dev/null 2>&1; then cache="$(go env GOMODCACHE)"; else cache="${GOMODCACHE:-${GOPATH:-$HOME/go}/pkg/mod}"; fi
dir="$cache/${module}@${version}/example/prometheus-operator-crd"
if [[ ! -d "$dir" ]]; then
  command -v go >/dev/null 2>&1 || { echo "Go is not on PATH and $dir is not there: install Go, or set GOMODCACHE to a module cache holding ${module}@${version}" >&2; exit 1; }
  # Outside any module, so that no go.mod or go.sum of this project changes.
  (cd "$(mktemp -d)" && go mod download "${module}@${version}" >&2)
fi
echo "$dir"
