#!/usr/bin/env bash
# Builds promtool (Prometheus's own rule checker, the version pinned in hack/promtool/go.mod) from the Go
# module proxy into .cache/promtool/<version>/promtool, once; prints its path. Used by the alert tests
# (test/integration/operator-alerts.test.ts, hosted-alerts.test.ts: promtool check rules / test rules). PROMTOOL=<path> uses another.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
log() { printf '[promtool %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
if [[ -n "${PROMTOOL:-}" ]]; then echo "$PROMTOOL"; exit 0; fi
# The pinned version, read from go.mod itself: a machine without Go still finds a promtool built before.
version="$(awk '$1 == "require" && $2 == "github.com/prometheus/prometheus" { print $3; exit } $1 == "github.com/prometheus/prometheus" { print $2; exit }' go.mod)"
[[ -n "$version" ]] || { log "hack/promtool/go.mod requires no github.com/prometheus/prometheus"; exit 1; }
out="$(cd ../.. && pwd)/.cache/promtool/$version/promtool"
if [[ -x "$out" ]] && "$out" --version >/dev/null 2>&1; then echo "$out"; exit 0; fi
command -v go >/dev/null || { log "Go >= 1.26.7 is needed to build promtool ($version) (or set PROMTOOL to a promtool binary)"; exit 1; }
log "building promtool from github.com/prometheus/prometheus $version (cold: a few minutes)"
t0=$(date +%s)
mkdir -p "$(dirname "$out")"
# builtinassets: the web UI's assets are not needed by promtool and are not in the module.
go build -trimpath -tags builtinassets \
  -ldflags "-X github.com/prometheus/common/version.Version=${version}" -o "$out.tmp" github.com/prometheus/prometheus/cmd/promtool
mv "$out.tmp" "$out"
log "promtool $version built in $(( $(date +%s) - t0 )) s"
echo "$out"
