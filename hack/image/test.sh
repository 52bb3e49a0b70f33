#!/usr/bin/env bash
# npm run image:test — runs the image built by `npm run image` against a local control plane (see image-test.ts).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
for tool in podman runc skopeo umoci; do
  command -v "$tool" >/dev/null || { echo "[image:test] $tool is missing: npm run image:tools, then npm run image" >&2; exit 1; }
done
# The test runs both per-architecture images and the index that resolves to them: say which is missing, and how to build it.
image="${IMAGE:-featuregate-coordinator:$(node -p "require('./package.json').version")}"
missing() { echo "[image:test] no $1 $2 here: build it first with 'npm run image' (both architectures; ARCHS=amd64 builds one, which this test does not accept), or set IMAGE to the reference you built" >&2; exit 1; }
for ref in "$image-amd64" "$image-arm64"; do podman image exists "$ref" || missing image "$ref"; done
podman manifest exists "$image" || missing index "$image"
bash hack/envtest/build.sh >/dev/null
npx tsc -p tsconfig.build.json
npx tsc -p tsconfig.json --outDir .cache/image-build --declaration false --declarationMap false --sourceMap false
exec node .cache/image-build/hack/image/image-test.js "$@"
