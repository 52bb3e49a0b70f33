#!/usr/bin/env bash
# Copies Kubernetes' own gate lifecycle file (test/compatibility_lifecycle/reference/versioned_feature_list.yaml)
# of the release hack/envtest builds into deploy/kubernetes/, from the Go module cache (hack/envtest/build.sh
# puts k8s.io/kubernetes there). `featuregates verify` reads it to tell a gate the binary has not yet at its
# emulated version from one it does not have at all. Never edited by hand: test/unit/running-gates.test.ts
# checks the copy against the module's file.
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(awk '$1 == "k8s.io/kubernetes" { print $2; exit }' hack/envtest/go.mod)
src="$(go env GOMODCACHE)/k8s.io/kubernetes@${version}/test/compatibility_lifecycle/reference/versioned_feature_list.yaml"
[ -f "$src" ] || (cd hack/envtest && go mod download "k8s.io/kubernetes@${version}")
minor=$(echo "$version" | sed -E 's/^v([0-9]+)\.([0-9]+)\..*/\1.\2/')
cp "$src" "deploy/kubernetes/versioned_feature_list-${minor}.yaml"
echo "deploy/kubernetes/versioned_feature_list-${minor}.yaml from k8s.io/kubernetes@${version}"
