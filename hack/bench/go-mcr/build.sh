#!/usr/bin/env bash
# Builds one multicluster-runtime sharded peer (main.go) into .cache/bench/go-mcr and prints its path. Benchmark
# tooling: `npm run bench -- mcr-takeover` runs three of them. Needs the Go module proxy
# (sigs.k8s.io/multicluster-runtime v0.24.1, controller-runtime v0.24.1, client-go v0.36.0).
exec bash "$(dirname "${BASH_SOURCE[0]}")/../go-build.sh" go-mcr
