#!/usr/bin/env bash
# Builds the sandbox for a web browser and assembles a folder any static file server can
# serve: target/web/ (index.html, impulse.wasm, the JavaScript glue). See docs/web.md.
#
#   web/build.sh            build, then assemble target/web/
#   web/build.sh --debian   build with Debian's web toolchain even where rustup could do it
#
# With rustup, the wasm standard library comes from `rustup target add
# wasm32-unknown-unknown`. Where that is not possible (a Rust without rustup, or a rustup
# that cannot download), the standard library is built from source with Debian's web
# toolchain: the packages rustc-web, cargo-web, rust-web-src and lld, installed here with
# apt-get when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

TARGET=wasm32-unknown-unknown
OUT=target/web
FEATURES=(--no-default-features --features app --bin impulse)
# wasm's 128-bit SIMD (every current browser has it) for the solver's four-lane maths:
# about 1.6 times faster steps than the scalar fallback (docs/web.md).
SIMD="-C target-feature=+simd128"

use_debian=false
if [ "${1:-}" = "--debian" ]; then
  use_debian=true
elif ! command -v rustup >/dev/null 2>&1; then
  use_debian=true
elif ! grep -qx "$TARGET" <<< "$(rustup target list --installed 2>/dev/null || true)"; then
  echo "== rustup target add $TARGET"
  rustup target add "$TARGET" || use_debian=true
fi

if $use_debian; then
  echo "== building with Debian's web toolchain (the standard library from source)"
  needed=()
  for package in rustc-web cargo-web rust-web-src lld; do
    dpkg -s "$package" >/dev/null 2>&1 || needed+=("$package")
  done
  if [ ${#needed[@]} -gt 0 ]; then
    SUDO=""
    if [ "$(id -u)" != "0" ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${needed[@]}" >/dev/null
  fi
  # Its own target folder: the Debian compiler's build of the dependencies is not rustup's.
  RUSTC_BOOTSTRAP=1 RUSTC=/usr/bin/rustc CARGO_TARGET_DIR=target/debian-web \
    RUSTFLAGS="-C linker=wasm-ld -C link-arg=--allow-undefined $SIMD" \
    /usr/bin/cargo build --release --target "$TARGET" -Zbuild-std=std,panic_abort "${FEATURES[@]}"
  wasm=target/debian-web/$TARGET/release/impulse.wasm
else
  echo "== cargo build --release --target $TARGET"
  RUSTFLAGS="$SIMD" cargo build --release --target "$TARGET" "${FEATURES[@]}"
  wasm=target/$TARGET/release/impulse.wasm
fi

# The JavaScript the crates' imports need, from the versions Cargo.lock holds: miniquad's
# loader and WebGL (gl.js), sapp-jsutils' strings and quad-url's address.
package_dir() {
  cargo metadata --format-version 1 --locked 2>/dev/null | python3 -c '
import json, os, sys
name = sys.argv[1]
for p in json.load(sys.stdin)["packages"]:
    if p["name"] == name:
        print(os.path.dirname(p["manifest_path"]))
        break
' "$1"
}
rm -rf "$OUT"
mkdir -p "$OUT"
cp "$(package_dir miniquad)/js/gl.js" "$OUT/"
cp "$(package_dir sapp-jsutils)/js/sapp_jsutils.js" "$OUT/"
cp "$(package_dir quad-url)/js/quad-url.js" "$OUT/"
cp web/index.html web/impulse.js "$OUT/"
cp "$wasm" "$OUT/impulse.wasm"

bytes=$(wc -c < "$OUT/impulse.wasm")
gzipped=$(gzip -9 -c "$OUT/impulse.wasm" | wc -c)
echo "== $OUT: impulse.wasm $((bytes / 1024)) KiB, $((gzipped / 1024)) KiB gzipped"
limit=6000000
if [ "$bytes" -ge "$limit" ]; then
  echo "impulse.wasm is $bytes bytes: over the 6 MB the web build keeps to" >&2
  exit 1
fi
echo "serve it with any static file server, e.g.: python3 -m http.server -d $OUT 8000"
