#!/bin/sh
# Follows the README's Set-up as a new user would: a fresh clone in a fresh directory, a
# fresh virtual environment, `pip install ".[plot]" && multibody demo` from the clone's root,
# then `pip install ".[test]"` and the README's snippets (tests/test_readme.py; the README's
# own `python -m pytest` runs the whole suite, which takes minutes more).
#
#   tests/readme_fresh_venv.sh [REPOSITORY]   (default: the repository holding this script)
#
# Needs the network (pip). Prints the demo's time on the fresh (empty) kernel cache and on
# the filled one. Run by tests/test_readme.py when MULTIBODY_FRESH_VENV=1.
set -eu
REPO=${1:-$(cd "$(dirname "$0")/.." && pwd)}
WORK=$(mktemp -d)
git clone -q "$REPO" "$WORK/multibody"
cd "$WORK/multibody"
python3 -m venv .venv
. .venv/bin/activate
pip install -q ".[plot]" && multibody demo
test -s demo_results.npz && test -s demo.png
start=$(date +%s.%N); multibody demo > /dev/null; end=$(date +%s.%N)
echo "filled cache: multibody demo took $(python -c "print(f'{$end - $start:.2f}')") s"
# (without MULTIBODY_FRESH_VENV: inherited, the snippets' run would follow the set-up again, and so on)
pip install -q ".[test]" && env -u MULTIBODY_FRESH_VENV python -m pytest -q -p no:cacheprovider tests/test_readme.py
echo "README set-up followed in $WORK/multibody: OK"
