#!/bin/sh
# Takes docs/img/web-tournament.png again: the browser test of a tournament's
# live tables (six bots at three tables) saves the page at 1280×800, and the
# shot is copied here. Run from anywhere; needs what `make test` needs.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
shots=$(mktemp -d)
trap 'rm -rf "$shots"' EXIT
cd "$root"
BALLROOM_ARTIFACTS="$shots" .venv/bin/pytest -q \
    tests/server/test_web_tournament_page.py -k every_table_shows
cp "$shots/tournament-tables-1280x800.png" docs/img/web-tournament.png
echo "docs/img/web-tournament.png"
