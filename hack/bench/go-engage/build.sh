#!/usr/bin/env bash
# Builds client-go's take-over of guests (main.go) into .cache/bench/go-engage and prints its path. Benchmark
# tooling: `npm run bench -- engage-floor` runs it. Needs the Go module proxy (client-go v0.36.0).
exec bash "$(dirname "${BASH_SOURCE[0]}")/../go-build.sh" go-engage
