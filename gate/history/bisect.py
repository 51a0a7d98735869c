"""`history bisect`: the commits between the two sides of a change point, and the gate runs that
name the one that moved.

Nightly runs measure one commit a night, so a change point names a range ``before..after`` that
may hold many commits. Each candidate is measured against ``before`` with the gate's RMIT run
(base = before, head = candidate), so every comparison has the precision of a PR verdict; halving
the range as ``git bisect`` does needs about log2(n) runs. This module lists the candidates in
commit order (``git rev-list --first-parent --reverse before..after``: the commits the default
branch went through) and the runs in bisection order; it does not run them (each is a full RMIT
run on the benchmark machine).
"""

from __future__ import annotations

import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

from gate.errors import InputError
from gate.host import programs


@dataclass(frozen=True)
class Plan:
    before: str
    after: str
    candidates: tuple[str, ...]  # oldest first; the last is ``after``
    first_probe: str  # the middle candidate: where bisection starts


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        [programs.git(), "-C", str(repo), *args],
        capture_output=True,
        text=True,
        check=False,
        env=programs.current().env(),
    )
    if done.returncode != 0:
        raise InputError(
            f"git {' '.join(args)} failed in {repo}: {done.stderr.strip()[:300]}",
            "pass --repo with a clone that has both commits (git fetch origin; a shallow clone needs "
            "`git fetch --unshallow`)",
        )
    return done.stdout


def plan(repo: Path, before: str, after: str) -> Plan:
    for sha in (before, after):
        if sha.startswith("-"):
            raise InputError(f"{sha!r} is not a commit", "pass the before/after SHAs of a change point")
        _git(repo, "rev-parse", "--verify", "--quiet", f"{sha}^{{commit}}")
    if subprocess.run(
        [programs.git(), "-C", str(repo), "merge-base", "--is-ancestor", before, after],
        check=False,
        env=programs.current().env(),
    ).returncode:
        raise InputError(
            f"{before} is not an ancestor of {after}, so there is no range between them to bisect",
            "check the change point's before/after (history changes --json) and the branch of --repo",
        )
    revs = tuple(_git(repo, "rev-list", "--first-parent", "--reverse", f"{before}..{after}").split())
    if not revs:
        raise InputError(f"no commit between {before} and {after}", "the change point is already one commit")
    return Plan(before, after, revs, revs[(len(revs) - 1) // 2])


def commands(p: Plan, out: str = "bisect") -> list[str]:
    """The gate commands for the first probe; the next probe is the middle of the half that holds
    the step (the candidate's verdict against ``before`` says which half)."""
    c = p.first_probe
    return [
        f"ordertrap-gate run --base {shlex.quote(p.before)} --head {shlex.quote(c)} --out {shlex.quote(f'{out}/{c[:12]}')}",
        f"ordertrap-gate analyze {shlex.quote(f'{out}/{c[:12]}/trials.csv')} --json {shlex.quote(f'{out}/{c[:12]}/analysis.json')}",
    ]
