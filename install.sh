#!/bin/sh
# Installs devcoach from a release archive, checking it against the release's SHASUMS256.txt.
#
#   curl -fsSL https://raw.githubusercontent.com/devcoach-rs/devcoach/main/install.sh | sh
#
# Settings (environment):
#   DEVCOACH_VERSION      the version to install (default: the one this script was released with)
#   DEVCOACH_INSTALL_DIR  where the binary goes (default: ~/.local/bin)
#   DEVCOACH_INSTALL_BASE where archives are fetched from (default: the GitHub release; a
#                         file:// URL works for a local dist/ folder)
set -eu

VERSION="${DEVCOACH_VERSION:-0.1.0}"
BASE="${DEVCOACH_INSTALL_BASE:-https://github.com/devcoach-rs/devcoach/releases/download/v$VERSION}"
DEST="${DEVCOACH_INSTALL_DIR:-$HOME/.local/bin}"

fail() { echo "devcoach install: $*" >&2; exit 1; }

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) TARGET=x86_64-unknown-linux-gnu ;;
  Linux-aarch64 | Linux-arm64) TARGET=aarch64-unknown-linux-gnu ;;
  Darwin-x86_64) TARGET=x86_64-apple-darwin ;;
  Darwin-arm64) TARGET=aarch64-apple-darwin ;;
  *) fail "no release for $(uname -s) $(uname -m); build from source: cargo install --git https://github.com/devcoach-rs/devcoach devcoach" ;;
esac
NAME="devcoach-$VERSION-$TARGET"
command -v curl >/dev/null 2>&1 || fail "curl is needed"
if command -v sha256sum >/dev/null 2>&1; then SUM="sha256sum"; elif command -v shasum >/dev/null 2>&1; then SUM="shasum -a 256"; else fail "sha256sum or shasum is needed"; fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT INT TERM
curl -fsSL "$BASE/$NAME.tar.gz" -o "$WORK/$NAME.tar.gz" || fail "could not download $BASE/$NAME.tar.gz"
curl -fsSL "$BASE/SHASUMS256.txt" -o "$WORK/SHASUMS256.txt" || fail "could not download $BASE/SHASUMS256.txt"
EXPECTED=$(grep " $NAME.tar.gz\$" "$WORK/SHASUMS256.txt" | cut -d' ' -f1)
[ -n "$EXPECTED" ] || fail "SHASUMS256.txt has no entry for $NAME.tar.gz"
ACTUAL=$(cd "$WORK" && $SUM "$NAME.tar.gz" | cut -d' ' -f1)
[ "$EXPECTED" = "$ACTUAL" ] || fail "checksum mismatch for $NAME.tar.gz (expected $EXPECTED, got $ACTUAL); nothing was installed"
tar -xzf "$WORK/$NAME.tar.gz" -C "$WORK"
mkdir -p "$DEST"
# Replace atomically: a running devcoach (an MCP server) keeps its old file.
cp "$WORK/$NAME/devcoach" "$DEST/.devcoach.new"
chmod 755 "$DEST/.devcoach.new"
mv -f "$DEST/.devcoach.new" "$DEST/devcoach"
echo "devcoach $VERSION installed to $DEST/devcoach (checksum verified)"
case ":$PATH:" in
  *":$DEST:"*) ;;
  *) echo "Add $DEST to your PATH, then run: devcoach install" ;;
esac
