#!/usr/bin/env bash
# Photographs the back office console's pages into docs/console/ (the pictures the README shows):
# the console's browser tests, run with CONSOLE_SCREENSHOTS set, save each page as they pass it.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/postgres.sh
ensure_postgres
export SALES_ENV=development TEST_DATABASE_URL="$PG_SERVER_URL/postgres"
export CONSOLE_SCREENSHOTS="$PWD/docs/console"
mkdir -p "$CONSOLE_SCREENSHOTS"
cargo test -p black-box-tests --test black_box console:: -- --test-threads=1
cargo test -p black-box-tests --test black_box analyst_queue:: -- --test-threads=1
cargo test -p black-box-tests --test black_box subject_requests:: -- --test-threads=1
cargo test -p black-box-tests --test black_box billing::the_console -- --test-threads=1
cargo test -p black-box-tests --test black_box debits::a_remessa -- --test-threads=1
cargo test -p black-box-tests --test black_box pix_automatico::the_console -- --test-threads=1
cargo test -p black-box-tests --test black_box contract_news::the_console -- --test-threads=1
ls "$CONSOLE_SCREENSHOTS"
