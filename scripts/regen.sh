#!/usr/bin/env bash
# Regenerate the committed shell completions (completions/) and man page
# (man/nvq.1) from nvq's clap definition, field registry and exit codes.
# tests/generated.rs fails until this has been run after such a change.
set -euo pipefail
cd "$(dirname "$0")/.."
NVQ_REGEN=1 cargo test --quiet --test tests -- --exact generated::committed_files_match_the_generator --nocapture
git status --short -- completions man 2>/dev/null || true
