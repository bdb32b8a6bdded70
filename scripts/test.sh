#!/usr/bin/env bash
# Set-up command 2: installs what is needed and runs every check and test: formatting, clippy
# with warnings denied, the interface's type check and unit tests, Rust unit and integration
# tests (real SQLite, LanceDB, PDFs and model; the keychain tests against a real Secret Service
# in a private D-Bus session), and the desktop window driven through WebKitWebDriver under Xvfb.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
install_system_packages
install_rust
fetch_model
fetch_chat_model
setup_env
build_ui
say "ui: unit tests"
(cd ui && npx vitest run)
say "cargo fmt --check"
cargo fmt --all -- --check
say "cargo build (every target of the workspace, in one invocation)"
cargo build --locked --workspace --all-targets
say "cargo clippy"
cargo clippy --locked --workspace --all-targets -- -D warnings
say "cargo test"
dbus-run-session -- bash scripts/with-keyring.sh cargo test --locked --workspace -- --test-threads 2 --skip local_model
# The built-in local model's tests run alone: llama.cpp's threads spin while they wait for each
# other, and beside the kill loop's processes a generation on these two cores crawls.
say "cargo test: the local model (llama.cpp, real GGUF)"
cargo test --locked --workspace --test integration -- local_model
say "desktop window end to end (WebKitWebDriver under Xvfb)"
xvfb-run -a -s "-screen 0 1440x900x24" python3 tests/e2e/desktop.py \
  "$CARGO_TARGET_DIR/debug/policypal-desktop" "$CARGO_TARGET_DIR/debug/policypal" "$CARGO_TARGET_DIR/e2e"
