#!/usr/bin/env bash
# Builds the installers: the release app and CLI, then a .deb and an .rpm through Tauri's
# bundler (`tauri bundle`, configured in src-tauri/tauri.conf.json), written to dist/.
#
# The packages hold both programs on PATH (policypal-desktop, and policypal: a two-line script
# that runs the desktop program as the command line, so the core is shipped once), the MiniLM model
# under /usr/share/policypal/models (found beside the program at run time; POLICYPAL_MODEL_DIR
# still overrides it), the icons, a desktop entry that opens PDFs, and the licences (PolicyPal's,
# the model's Apache-2.0, every crate's in THIRD-PARTY). An AppImage is not built: its tools
# are downloaded from GitHub by the bundler, which this machine cannot reach.
#
# A cold release build takes about 75 min on two cores; scripts/check-package.sh installs the
# .deb and uses it the way a user would.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
install_system_packages
install_rust
fetch_model
setup_env
build_ui

say "cargo build --release (the app and the CLI, one invocation)"
cargo build --release --locked --workspace --bins
RELEASE=$CARGO_TARGET_DIR/release
STAGE=$ROOT/src-tauri/packaging/stage
rm -rf "$STAGE" && mkdir -p "$STAGE"
# The line tables and symbols the release profile keeps (for profiling) are not shipped, as
# distributions ship theirs in separate debug packages.
strip --strip-all "$RELEASE/policypal-desktop"

say "listing the crates inside the programs and their licences"
{
  echo "Rust crates compiled into policypal and policypal-desktop (name version: licence)."
  echo "llama.cpp (MIT) is built from the source vendored in llama-cpp-sys-2; SQLite (public"
  echo "domain) from libsqlite3-sys."
  echo
  cargo tree --locked --workspace --edges normal,build --prefix none --format '{p}: {l}' \
    | sed -E 's/ \(\*\)$//; s/^([^:]*) \([^)]*\):/\1:/' | grep -v -e '^policypal' -e '^$' | sort -u
} > "$STAGE/THIRD-PARTY"

say "bundling .deb and .rpm"
(cd "$ROOT" && "$ROOT/ui/node_modules/.bin/tauri" bundle --bundles deb,rpm)
mkdir -p "$ROOT/dist"
rm -f "$ROOT"/dist/*.deb "$ROOT"/dist/*.rpm
cp "$RELEASE"/bundle/deb/*.deb "$RELEASE"/bundle/rpm/*.rpm "$ROOT/dist/"
(cd "$ROOT/dist" && sha256sum ./*.deb ./*.rpm > SHA256SUMS && ls -l ./*.deb ./*.rpm)
