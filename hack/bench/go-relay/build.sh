#!/usr/bin/env bash
# Builds the client-go relay (main.go) into .cache/bench/go-relay and prints its path. Benchmark tooling:
# the status-latency benchmark runs it when Go is installed. Needs the Go module proxy (client-go v0.36.3,
# already in the module cache once hack/envtest/build.sh has run).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$here/../../../.cache/bench/go-relay"
mkdir -p "$(dirname "$out")"
cd "$here"
[[ -f go.sum ]] || go mod tidy >&2
go build -trimpath -o "$out" . >&2
echo "$out"
