#!/bin/sh
# Takes docs/img/web-watch.png again: the browser test of a watched race (a
# paced racer against a bot, live) saves the page at 1280×800 between two
# moves, and the shot is copied here. Run from anywhere; needs what
# `make test` needs.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
shots=$(mktemp -d)
trap 'rm -rf "$shots"' EXIT
cd "$root"
BALLROOM_ARTIFACTS="$shots" .venv/bin/pytest -q \
    tests/server/test_web_watch.py -k watched_race_at_1280x800
cp "$shots/watch-1280x800.png" docs/img/web-watch.png
echo "docs/img/web-watch.png"
