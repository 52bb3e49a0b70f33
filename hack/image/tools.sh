#!/usr/bin/env bash
# Installs the Debian packages the image build and its test need (root): mmdebstrap and buildah to build,
# podman with runc (crun fails here on rlimits and cgroups) to run, skopeo and umoci for the unpacked fallback,
# qemu-user-static to start the arm64 image once.   npm run image:tools
set -euo pipefail
if [[ $(id -u) -ne 0 ]]; then echo "run as root (apt-get)" >&2; exit 1; fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mmdebstrap buildah podman runc skopeo umoci qemu-user-static >/dev/null
for t in mmdebstrap buildah podman runc skopeo umoci qemu-aarch64-static; do printf '%-20s %s\n' "$t" "$(command -v "$t")"; done
