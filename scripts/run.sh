#!/usr/bin/env bash
# Set-up command 1: installs everything PolicyPal needs, builds it and opens the desktop app.
# On a machine without a display (a server, CI) it instead drives the real window under Xvfb
# through a short demo (sample PDFs, a question, the cited answer) and saves screenshots.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
install_system_packages
install_rust
fetch_model
setup_env
build_ui
say "building policypal (CLI and desktop app)"
# One cargo invocation for every target, so the tests and the app share one build.
cargo build --locked --workspace --all-targets
APP="$CARGO_TARGET_DIR/debug/policypal-desktop"
if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
  say "starting PolicyPal (data: ${POLICYPAL_DATA_DIR:-the per-user data directory})"
  exec "$APP"
fi
OUT=${POLICYPAL_DEMO_DIR:-$ROOT/target-demo}
say "no display: running the window under Xvfb with sample PDFs; screenshots go to $OUT"
xvfb-run -a -s "-screen 0 1440x900x24" python3 tests/e2e/desktop.py "$APP" "$CARGO_TARGET_DIR/debug/policypal" "$OUT"
