#!/usr/bin/env bash
# Compiles the project (sources, hack/bench) into .cache/bench-build and runs one benchmark:
#   npm run bench -- <name>     (a file hack/bench/<name>.ts; "../x" runs hack/x.ts)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
name="${1:?usage: npm run bench -- <name>; one of: $(ls hack/bench/*.ts | xargs -n1 basename | sed 's/\.ts$//' | grep -v stats | tr '\n' ' ')}"
shift
npm run --silent build   # dist/ and the bundled CLI, which the process benchmarks spawn
npx tsc -p tsconfig.json --outDir .cache/bench-build --declaration false --declarationMap false --sourceMap false
exec node ".cache/bench-build/hack/bench/${name}.js" "$@"
