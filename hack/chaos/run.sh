#!/usr/bin/env bash
# Compiles the project (sources, hack/) into .cache/chaos-build and runs the chaos suite:
#   npm run chaos [-- [--short] [scenario ...]]     (npm run chaos -- --list: the scenarios)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
bash hack/envtest/build.sh >/dev/null
npm run --silent build
npx tsc -p tsconfig.json --outDir .cache/chaos-build --declaration false --declarationMap false --sourceMap false
exec node .cache/chaos-build/hack/chaos/run.js "$@"
