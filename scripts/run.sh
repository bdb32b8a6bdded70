#!/usr/bin/env bash
# Set-up command 1: installs everything PolicyPal needs, builds it and runs the main job
# (a CLI demo on the sample PDF the repository ships: ingest, list, search).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
install_system_packages
install_rust
fetch_model
setup_env
say "building policypal"
cargo build --locked --bin policypal
PP="$CARGO_TARGET_DIR/debug/policypal"
DEMO=${POLICYPAL_DEMO_DIR:-$ROOT/target-demo}
rm -rf "$DEMO"
say "demo library in $DEMO"
"$PP" --data-dir "$DEMO" profiles create alice --industry Banking --location Malaysia
"$PP" --data-dir "$DEMO" --profile alice ingest tests/fixtures/capital-2024.pdf \
  --title "Capital Adequacy Guidelines" --version 2024 --type regulatory --set "Prudential"
"$PP" --data-dir "$DEMO" --profile alice ingest tests/fixtures/retention-policy.pdf \
  --title "Data Retention Policy" --type policy --set "Acme policies"
"$PP" --data-dir "$DEMO" --profile alice docs list
"$PP" --data-dir "$DEMO" --profile alice search "how much capital must a bank hold against risky assets" -k 3
