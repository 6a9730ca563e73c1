#!/bin/sh
# Takes docs/img/web-tv.png again: the browser test of /tv (two live races, the
# page on the featured one) saves the page at 1280×800 while the race is under
# way, and the shot is copied here. Run from anywhere; needs what `make test` needs.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
shots=$(mktemp -d)
trap 'rm -rf "$shots"' EXIT
cd "$root"
BALLROOM_ARTIFACTS="$shots" .venv/bin/pytest -q \
    tests/server/test_web_tv.py -k "follows_the_featured_race and 1280x800"
cp "$shots/tv-live-1280x800.png" docs/img/web-tv.png
echo "docs/img/web-tv.png"
