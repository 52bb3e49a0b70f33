#!/usr/bin/env bash
# Builds the client-go relay (main.go) into .cache/bench/go-relay and prints its path. Benchmark tooling:
# the status-latency benchmark runs it when Go is installed. Needs the Go module proxy (client-go v0.36.3,
# already in the module cache once hack/envtest/build.sh has run).
exec bash "$(dirname "${BASH_SOURCE[0]}")/../go-build.sh" go-relay
