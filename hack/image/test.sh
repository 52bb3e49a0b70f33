#!/usr/bin/env bash
# npm run image:test — runs the image built by `npm run image` against a local control plane (see image-test.ts).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
for tool in podman runc skopeo umoci; do
  command -v "$tool" >/dev/null || { echo "[image:test] $tool is missing: npm run image:tools, then npm run image" >&2; exit 1; }
done
bash hack/envtest/build.sh >/dev/null
npx tsc -p tsconfig.build.json
npx tsc -p tsconfig.json --outDir .cache/image-build --declaration false --declarationMap false --sourceMap false
exec node .cache/image-build/hack/image/image-test.js "$@"
