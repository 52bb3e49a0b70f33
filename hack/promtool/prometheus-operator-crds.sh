#!/usr/bin/env bash
# Prints the folder of the Prometheus operator's own CRDs (PrometheusRule, ServiceMonitor, …) of the release below,
# from the Go module proxy (github.com/prometheus-operator/prometheus-operator, example/prometheus-operator-crd);
# downloaded once into the module cache. The monitoring tests install them into a real kube-apiserver to check
# the PrometheusRule and ServiceMonitor objects this project ships (test/integration/monitoring-install.test.ts).
set -euo pipefail
version=v0.85.0
module=github.com/prometheus-operator/prometheus-operator
dir="$(go env GOMODCACHE)/${module}@${version}/example/prometheus-operator-crd"
if [[ ! -d "$dir" ]]; then
  # Outside any module, so that no go.mod or go.sum of this project changes.
  (cd "$(mktemp -d)" && go mod download "${module}@${version}" >&2)
fi
echo "$dir"
