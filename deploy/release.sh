#!/usr/bin/env bash
# Release build: static binaries for linux/amd64 and linux/arm64 with the
# version and commit stamped (`camellos --version`), and their SHA-256
# checksums, in dist/:
#   deploy/release.sh                 # version from `git describe`
#   VERSION=v1.2.0 deploy/release.sh
#   TARGETS="linux/amd64" deploy/release.sh
# Check a download with `sha256sum -c SHA256SUMS` in dist/.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-buildvcs=false
VERSION="${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo devel)}"
COMMIT="${COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}"
TARGETS="${TARGETS:-linux/amd64 linux/arm64}"
OUT="${OUT:-dist}"
mkdir -p "$OUT"
rm -f "$OUT/SHA256SUMS"
for t in $TARGETS; do
  os="${t%/*}" arch="${t#*/}"
  name="camellos-${VERSION}-${os}-${arch}"
  echo "building $name" >&2
  GOOS="$os" GOARCH="$arch" go build -trimpath \
    -ldflags "-s -w -X camellos/modules/ops.version=${VERSION} -X camellos/modules/ops.commit=${COMMIT}" \
    -o "$OUT/$name" .
done
(cd "$OUT" && sha256sum camellos-"${VERSION}"-* > SHA256SUMS && cat SHA256SUMS)
