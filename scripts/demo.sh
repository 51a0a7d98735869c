#!/usr/bin/env bash
# `make demo`: the whole gate, end to end, on the bundled demo project (examples/demo-project).
#
# 1. builds a fresh two-commit git repository in demo-output/repo: base = examples/demo-project,
#    head = base + examples/demo-project.head.patch (ngrams ~20 % slower, wordfreq 15-20 % faster);
# 2. `ordertrap-gate run`: base and head trials interleaved in a random order per suite run;
# 3. prints the per-benchmark medians per version straight from the trial log (a sanity view);
# 4. `ordertrap-gate analyze` -> analysis.json, `report` -> report.html and the PR comment.
#
# Environment: DEMO_OUT (default demo-output), DEMO_SEED (schedule and bootstrap seed, default 1),
# DEMO_SETUP_ONLY=1 (stop after building the repository), BWRAP (the bubblewrap to probe).
#
# The sandbox: the demo's benchmarks are this repository's own code. Where bubblewrap is missing or
# cannot start (no user namespaces), the demo sets [suite] sandbox = "off" in its repository and
# says so once here, rather than showing the newcomer a sandbox warning in the very first comment.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
OUT="${DEMO_OUT:-demo-output}"
SEED="${DEMO_SEED:-1}"
START=$SECONDS

rm -rf "$OUT"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
REPO="$OUT/repo"
RUN="$OUT/run"

# The installed console script, else this checkout's package (cwd is the repository root).
if command -v ordertrap-gate >/dev/null; then
    GATE=(ordertrap-gate)
else
    GATE=(python3 -m gate)
fi
# The benchmark commands say `python`; on systems that only have `python3`, provide it.
if ! command -v python >/dev/null; then
    mkdir -p "$OUT/bin"
    ln -s "$(command -v python3)" "$OUT/bin/python"
    export PATH="$OUT/bin:$PATH"
fi

# The demo repository works without a configured git identity.
export GIT_AUTHOR_NAME="ordertrap demo" GIT_AUTHOR_EMAIL="demo@ordertrap.invalid"
export GIT_COMMITTER_NAME="ordertrap demo" GIT_COMMITTER_EMAIL="demo@ordertrap.invalid"
export GIT_CONFIG_NOSYSTEM=1
git_demo() { git -C "$REPO" -c commit.gpgsign=false -c core.hooksPath=/dev/null "$@"; }

echo "== demo: building $REPO (base + head commits)"
mkdir -p "$REPO"
(cd examples/demo-project && tar --exclude=__pycache__ --exclude=.ruff_cache --exclude=.pytest_cache -cf - .) | tar -xf - -C "$REPO"
BWRAP="${BWRAP:-$(command -v bwrap || true)}"
if [ -n "$BWRAP" ] && "$BWRAP" --ro-bind / / --dev /dev --unshare-user --unshare-pid -- /bin/true 2>/dev/null; then
    echo "== demo: benchmarks run in the bubblewrap sandbox ($BWRAP)"
else
    # `sandbox = "off"` under [suite]: the gate then runs without one and warns only on GitHub Actions
    python3 - "$REPO/.ordertrap.toml" <<'PY'
import sys
from pathlib import Path

path = Path(sys.argv[1])
text = path.read_text()
path.write_text(text.replace("[suite]\n", '[suite]\nsandbox = "off"  # set by scripts/demo.sh: no bubblewrap here\n', 1))
PY
    echo "== demo: bubblewrap is not available here, so the demo's benchmarks (this repository's own code)"
    echo "   run unsandboxed on purpose ([suite] sandbox = \"off\"); \`make system-deps\` (as root) installs it"
fi
git -c init.defaultBranch=main init -q "$REPO"
git_demo add -A
git_demo commit -q -m "textkit: text analytics with a warm-start normalisation cache (base)"
git_demo apply --whitespace=nowarn "$ROOT/examples/demo-project.head.patch"
git_demo add -A
git_demo commit -q -m "textkit: count words without the tokens() generator; generalise bigrams to n-grams (head)"
git_demo log --oneline
if [ -n "${DEMO_SETUP_ONLY:-}" ]; then
    exit 0
fi

CONFIG="$REPO/.ordertrap.toml"

# textkit's single-use warm-start file (the intentional carry-over) lives here, shared by the
# base and head worktrees; a private directory keeps concurrent demos apart. It is under
# ~/.cache/ordertrap-demo, which the demo's .ordertrap.toml binds into the sandbox as a cache
# ([suite] caches): otherwise each version has a private $HOME and /tmp there (docs/running.md).
mkdir -p "$HOME/.cache/ordertrap-demo"
TEXTKIT_CACHE_DIR="$(mktemp -d "$HOME/.cache/ordertrap-demo/run.XXXXXX")"
export TEXTKIT_CACHE_DIR
trap 'rm -rf "$TEXTKIT_CACHE_DIR"' EXIT

echo "== demo: ${GATE[*]} run (base HEAD~1, head HEAD)"
"${GATE[@]}" run --config "$CONFIG" --repo "$REPO" --base HEAD~1 --head HEAD \
    --out "$RUN" --seed "$SEED"

echo "== demo: medians per version from $RUN/trials.csv (sanity view)"
python3 - "$RUN" <<'PY'
import json
import sys
from pathlib import Path

import pandas as pd

run = Path(sys.argv[1])
trials = pd.read_csv(run / "trials.csv")
meta = json.loads((run / "meta.json").read_text())
base, head = meta["base"], meta["head"]
# The benchmark that ran just before each trial in its suite run (the planted carry-over).
order = trials.drop_duplicates("trial").sort_values(["instance", "suite_run", "position"])
order["previous"] = order.groupby(["instance", "suite_run"])["benchmark"].shift(1)
ok = trials[trials["status"] == "ok"].merge(order[["trial", "previous"]], on="trial")
med = ok.pivot_table(index="benchmark", columns="version", values="value", aggfunc="median")
after_vocab = ok[ok["previous"] == "vocab"].groupby("benchmark")["value"].median()
after_other = ok[ok["previous"] != "vocab"].groupby("benchmark")["value"].median()
print(f"{'benchmark':<10} {base + ' (base)':>15} {head + ' (head)':>15} {'change':>8}   after vocab vs others")
for name in med.index:
    b, h = med.loc[name, base], med.loc[name, head]
    carry = (after_vocab.get(name, float("nan")) / after_other[name] - 1) * 100
    print(f"{name:<10} {b * 1e3:12.1f} ms {h * 1e3:12.1f} ms {(h / b - 1) * 100:+7.1f}%   {carry:+.1f}%")
n_bad = int((trials["status"] != "ok").sum())
print(f"{len(trials)} trials, {n_bad} not ok")
PY

echo "== demo: ${GATE[*]} analyze"
"${GATE[@]}" analyze "$RUN/trials.csv" --json "$OUT/analysis.json" --seed "$SEED"

echo "== demo: ${GATE[*]} report"
"${GATE[@]}" report "$OUT/analysis.json" --format html --out "$OUT/report.html"
"${GATE[@]}" report "$OUT/analysis.json" --format comment --out "$OUT/comment.md" \
    --report-url report.html
echo "---------------------------------------------------------------- PR comment"
cat "$OUT/comment.md"
echo "----------------------------------------------------------------"
echo "HTML report: $OUT/report.html"
echo "== demo: done in $((SECONDS - START)) s; outputs in $OUT"
