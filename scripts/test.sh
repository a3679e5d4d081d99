#!/usr/bin/env bash
# The tests, Rust and Python: the workspace's suite, then the Python
# package built from this checkout into a fresh virtual environment
# (target/python-env) and its pytest suite.
#
# The package is built with the development profile, which shares its
# compiled crates with the Rust suite's build; `pip install .` (release)
# is what users run.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo test --workspace

env=target/python-env
rm -rf "$env"
python3 -m venv "$env"
"$env/bin/python" -m pip install --quiet --upgrade pip
MATURIN_PEP517_ARGS="--profile dev" "$env/bin/python" -m pip install --quiet ".[test]"
# Run from outside the checkout, so `import spf` is the installed package.
(cd "$env" && bin/python -m pytest -q -p no:cacheprovider "$OLDPWD/python/tests")
