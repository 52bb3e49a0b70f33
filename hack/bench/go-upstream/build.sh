#!/usr/bin/env bash
# Builds upstream cluster-config-operator's FeatureGate loop (main.go here, compiled inside a copy of that
# repository with its vendor/ folder) into .cache/bench/fgc-bench-featuregate-loop and prints its path.
# Benchmark tooling for `npm run bench -- upstream`; needs Go and a checkout of
# openshift/cluster-config-operator: CCO_SRC=<its folder or bare git directory> (no network is used).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="$here/../../../.cache/bench"
out="$cache/fgc-bench-featuregate-loop"
src="${CCO_SRC:?set CCO_SRC to a checkout (or bare git directory) of openshift/cluster-config-operator}"
tree="$cache/cluster-config-operator"
mkdir -p "$cache"
if [[ -d "$src/.git" || -f "$src/go.mod" ]]; then rev=$(git -C "$src" rev-parse HEAD); else rev=$(git --git-dir "$src" rev-parse HEAD); fi
if [[ "$(cat "$tree/.fgc-rev" 2>/dev/null)" != "$rev" ]]; then
  rm -rf "$tree"
  git clone -q "$src" "$tree"
  echo "$rev" > "$tree/.fgc-rev"
fi
mkdir -p "$tree/cmd/fgc-bench-featuregate-loop"
cp "$here/main.go" "$tree/cmd/fgc-bench-featuregate-loop/main.go"
echo "building upstream's FeatureGate loop at cluster-config-operator $rev (vendor/; the first build takes minutes)" >&2
(cd "$tree" && GOFLAGS=-mod=vendor go build -trimpath -o "$out" ./cmd/fgc-bench-featuregate-loop >&2)
echo "$out"
