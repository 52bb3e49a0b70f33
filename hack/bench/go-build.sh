#!/usr/bin/env bash
# Builds one benchmark-only Go module, hack/bench/<name>, into .cache/bench/<name> and prints the binary's path.
#   bash hack/bench/go-build.sh go-relay
set -euo pipefail
name="${1:?usage: go-build.sh <module directory under hack/bench>}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$here/../../.cache/bench/$name"
mkdir -p "$(dirname "$out")"
cd "$here/$name"
[[ -f go.sum ]] || go mod tidy >&2
go build -trimpath -o "$out" . >&2
echo "$out"
