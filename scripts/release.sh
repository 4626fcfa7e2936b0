#!/usr/bin/env bash
# Builds a release archive of devcoach for one target (default: this machine's):
#   dist/devcoach-<version>-<target>.tar.gz (.zip for Windows) holding the binary, README,
#   LICENSE, third-party notices, the crate licence list, a CycloneDX SBOM, the man page
#   (devcoach.1) and shell completions (completions/: bash, zsh, fish, PowerShell),
#   dist/devcoach-<version>-<target>.cdx.json (the SBOM, also beside the archive),
#   dist/devcoach-<version>-<target>.mcpb, the Claude Desktop extension (when the MCPB tool is
#   installed: scripts/test.sh puts it in target/agents),
#   dist/SHASUMS256.txt over every archive in dist/.
# With --verify: checks the checksums, unpacks the archive into a scratch folder and runs the
# binary inside from an empty HOME: `--version`, and an MCP `initialize`.
#   scripts/release.sh [--target TRIPLE] [--verify]
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET=$(rustc -vV | sed -n 's/^host: //p')
VERIFY=0
while [ $# -gt 0 ]; do
  case "$1" in
    --target) TARGET=$2; shift 2 ;;
    --verify) VERIFY=1; shift ;;
    *) echo "usage: scripts/release.sh [--target TRIPLE] [--verify]" >&2; exit 2 ;;
  esac
done
VERSION=$(cargo metadata --format-version 1 --no-deps --locked | python3 -c 'import json,sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"]=="devcoach"))')
HOST=$(rustc -vV | sed -n 's/^host: //p')
NAME=devcoach-$VERSION-$TARGET
EXE=devcoach
case "$TARGET" in *windows*) EXE=devcoach.exe ;; esac

if [ "$TARGET" = "$HOST" ]; then
  cargo build --profile dist --locked -p devcoach
  BIN=target/dist/$EXE
else
  cargo build --profile dist --locked -p devcoach --target "$TARGET"
  BIN=target/$TARGET/dist/$EXE
fi

mkdir -p dist
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
mkdir "$STAGE/$NAME"
cp "$BIN" README.md LICENSE THIRD_PARTY_NOTICES.md "$STAGE/$NAME/"
# The man page and completions come from the clap definition, written by a binary for this
# machine (the target's may not run here).
if [ "$TARGET" = "$HOST" ]; then GEN=$BIN; else cargo build --profile dist --locked -p devcoach; GEN=target/dist/devcoach; fi
"$GEN" man > "$STAGE/$NAME/devcoach.1"
mkdir "$STAGE/$NAME/completions"
"$GEN" completions bash > "$STAGE/$NAME/completions/devcoach.bash"
"$GEN" completions zsh > "$STAGE/$NAME/completions/_devcoach"
"$GEN" completions fish > "$STAGE/$NAME/completions/devcoach.fish"
"$GEN" completions powershell > "$STAGE/$NAME/completions/devcoach.ps1"
python3 scripts/sbom.py "$TARGET" "$STAGE/$NAME/sbom.cdx.json" "$STAGE/$NAME/CRATES.md"
cp "$STAGE/$NAME/sbom.cdx.json" "dist/$NAME.cdx.json"
case "$TARGET" in
  *windows*)
    ARCHIVE=dist/$NAME.zip
    rm -f "$ARCHIVE"
    (cd "$STAGE" && python3 -c 'import os,sys,zipfile
z = zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED)
for root, _, files in sorted(os.walk(sys.argv[2])):
    for f in sorted(files):
        z.write(os.path.join(root, f))' "$OLDPWD/$ARCHIVE" "$NAME")
    ;;
  *)
    ARCHIVE=dist/$NAME.tar.gz
    # Reproducible: fixed order, owner and time.
    tar --sort=name --owner=0 --group=0 --numeric-owner --mtime='2026-01-01 00:00Z' -C "$STAGE" -czf "$ARCHIVE" "$NAME"
    ;;
esac
# The Claude Desktop extension (.mcpb): the manifest, this target's binary and the icon, packed
# and checked by the MCPB tool (scripts/test.sh installs it into target/agents).
MCPB=${MCPB:-target/agents/node_modules/.bin/mcpb}
[ -x "$MCPB" ] || MCPB=$(command -v mcpb || true)
if [ -n "$MCPB" ]; then
  BUNDLE=$(mktemp -d)
  mkdir "$BUNDLE/bin"
  cp "$BIN" "$BUNDLE/bin/"
  cp assets/packaging/icon.png "$BUNDLE/icon.png"
  # One binary inside: the bundle says which platform it serves.
  python3 -c 'import json,sys
m = json.load(open(sys.argv[2]))
t = sys.argv[1]
m["compatibility"]["platforms"] = ["win32" if "windows" in t else "darwin" if "apple" in t else "linux"]
if "windows" in t:
    m["server"]["entry_point"] = "bin/devcoach.exe"
json.dump(m, open(sys.argv[3], "w"), indent=2)' "$TARGET" packaging/claude-desktop/manifest.json "$BUNDLE/manifest.json"
  "$MCPB" validate "$BUNDLE/manifest.json"
  rm -f "dist/$NAME.mcpb"
  "$MCPB" pack "$BUNDLE" "dist/$NAME.mcpb" >/dev/null
  "$MCPB" info "dist/$NAME.mcpb" | grep -q "devcoach" && echo "claude desktop extension: dist/$NAME.mcpb"
  rm -rf "$BUNDLE"
elif [ "$VERIFY" = 1 ]; then
  echo "mcpb not found (run scripts/test.sh, or set MCPB): the Claude Desktop extension cannot be checked" >&2
  exit 1
else
  echo "mcpb not found (run scripts/test.sh, or set MCPB): no Claude Desktop extension built" >&2
fi
(cd dist && shopt -s nullglob && archives=(*.tar.gz *.zip *.mcpb) && sha256sum "${archives[@]}" > SHASUMS256.txt)
python3 scripts/homebrew.py "$VERSION" dist/SHASUMS256.txt dist/devcoach.rb
echo "$ARCHIVE"
cat dist/SHASUMS256.txt

if [ "$VERIFY" = 1 ]; then
  (cd dist && sha256sum -c SHASUMS256.txt)
  CHECK=$(mktemp -d)
  trap 'rm -rf "$STAGE" "$CHECK"' EXIT
  mkdir "$CHECK/home"
  tar -xzf "$ARCHIVE" -C "$CHECK"
  RUN="$CHECK/$NAME/$EXE"
  env -i HOME="$CHECK/home" PATH=/usr/bin:/bin "$RUN" --version
  grep -q '^\.TH devcoach 1' "$CHECK/$NAME/devcoach.1" && echo "man page: devcoach.1"
  grep -q '_devcoach' "$CHECK/$NAME/completions/devcoach.bash" && echo "completions: bash, zsh, fish, powershell"
  INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"release-check","version":"1"}}}'
  REPLY=$(printf '%s\n' "$INIT" | env -i HOME="$CHECK/home" PATH=/usr/bin:/bin timeout 10 "$RUN" mcp 2>/dev/null | head -1)
  echo "$REPLY" | python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); assert r["result"]["serverInfo"]["name"]=="devcoach", r; print("mcp initialize: ok,", r["result"]["serverInfo"]["version"])'
  [ ! -e "$CHECK/home/.devcoach/coaching.db" ] || { echo "starting the server created the database" >&2; exit 1; }
  # The install script, from this dist/ folder: verifies the checksum and installs.
  env -i HOME="$CHECK/home" PATH=/usr/bin:/bin DEVCOACH_VERSION="$VERSION" DEVCOACH_INSTALL_BASE="file://$PWD/dist" \
    DEVCOACH_INSTALL_DIR="$CHECK/bin" sh install.sh
  "$CHECK/bin/devcoach" --version
  # A tampered archive is refused and installs nothing.
  mkdir "$CHECK/tampered"
  cp dist/SHASUMS256.txt "$CHECK/tampered/"
  cp "$ARCHIVE" "$CHECK/tampered/" && printf 'x' >> "$CHECK/tampered/$NAME.tar.gz"
  if env -i HOME="$CHECK/home" PATH=/usr/bin:/bin DEVCOACH_VERSION="$VERSION" DEVCOACH_INSTALL_BASE="file://$CHECK/tampered" \
    DEVCOACH_INSTALL_DIR="$CHECK/bin2" sh install.sh 2>"$CHECK/err"; then
    echo "a tampered archive was installed" >&2; exit 1
  fi
  grep -q "checksum mismatch" "$CHECK/err" && [ ! -e "$CHECK/bin2/devcoach" ] && echo "install.sh: tampered archive refused"
  grep -q 'sha256 "' dist/devcoach.rb && grep -q 'devcoach uninstall --all' dist/devcoach.rb \
    && echo "homebrew formula: dist/devcoach.rb (with its caveats)"
  if [ -e "dist/$NAME.mcpb" ]; then
    # The bundle unpacks to the manifest, the icon and a binary that answers.
    python3 -c 'import os,sys,zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    for info in z.infolist():
        path = z.extract(info, sys.argv[2])
        mode = info.external_attr >> 16
        if mode:
            os.chmod(path, mode & 0o777)' "dist/$NAME.mcpb" "$CHECK/mcpb"
    [ -f "$CHECK/mcpb/icon.png" ] && env -i HOME="$CHECK/home" PATH=/usr/bin:/bin "$CHECK/mcpb/bin/$EXE" --version >/dev/null \
      && echo "claude desktop extension: manifest, icon and binary"
  fi
fi
