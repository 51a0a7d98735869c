"""A different process layout in every trial, so that layout bias becomes noise.

Mytkowicz, Diwan, Hauswirth and Sweeney, "Producing wrong data without doing anything obviously
wrong!" (ASPLOS'09): the size of the UNIX environment (varied up to 4 KiB) and the link order
shift where the stack and the code land in memory, and with them cache-line, page and branch
alignment; either alone changed measured speedups enough to reverse a conclusion, without any
change to the code. A change that only moves code (xxhash v2.2.0 → v2.3.0 changed comments in
the measured files, and timings moved by -8 % to +3 %) gives one layout to base and another to
head, and a gate that measures each version in one layout reports that as a verdict. Their remedy
is setup randomisation: measure in many layouts, so that the spread becomes noise the CIs carry.

What the gate randomises, per trial, seeded from the schedule seed and the trial number so that a
rerun with the same ``--seed`` repeats every layout (meta.json ``layout``):

* **Environment size**: the variable :data:`PAD_VARIABLE`, 0 to :data:`MAX_PAD_BYTES` bytes long,
  in the environment of every process the trial spawns. The environment strings sit at the top
  of the initial stack (System V ABI, "Process Initialization"), so their size moves every stack
  address of the benchmark. The range covers one page (4096 bytes), hence every cache-line
  offset within a page. (ASLR, when on, also moves the stack per process, but at page
  granularity plus a small offset; the padding adds every byte offset, and reproducibly.)

What it does not randomise, and why:

* **The working directory's depth**: a deeper *symbolic link* to the worktree changes nothing the
  benchmark sees, because the kernel resolves the link and ``getcwd(3)`` returns the real path;
  only ``$PWD`` would differ, which is part of the environment padding above. A really deeper
  *directory* means a copy of the worktree per trial: Go's build cache and pytest's rootdir key on
  the path (a rebuild per trial), and adapters and ``[suite].build`` address files relative to the
  worktree the sandbox (gate/engine/sandbox.py) binds. The padding moves the stack by the same bytes.
* **Link order and code alignment**: they are fixed when the benchmark binary is built, by the
  user's toolchain; the gate runs one build per version. What the padding cannot move, a
  per-benchmark ``threshold_pct`` above the size of such shifts absorbs (docs/running.md "Layout bias").
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gate.adapters.base import ProcessResult, ProcessRunner

PAD_VARIABLE = "ORDERTRAP_LAYOUT_PAD"
MAX_PAD_BYTES = 4096  # one page; Mytkowicz et al. vary the environment by up to 4 KiB


def pad_bytes(seed: int, trial: int, max_bytes: int = MAX_PAD_BYTES) -> int:
    """Length of the padding of ``trial`` (uniform in 0..max_bytes), a pure function of the
    schedule seed and the trial number: stable across Python and numpy versions (SHA-256)."""
    digest = hashlib.sha256(f"ordertrap-layout:{seed}:{trial}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % (max_bytes + 1)


@dataclass(frozen=True)
class Layout:
    """Per-trial layout randomisation of a run (None of it when ``enabled`` is false)."""

    seed: int
    enabled: bool = True
    max_bytes: int = MAX_PAD_BYTES

    def pad(self, trial: int) -> int | None:
        return pad_bytes(self.seed, trial, self.max_bytes) if self.enabled else None

    def runner(self, trial: int, runner: ProcessRunner) -> ProcessRunner:
        n = self.pad(trial)
        return runner if n is None else PaddedRunner(runner, n)

    def meta(self, trials: Sequence[int]) -> dict[str, Any]:
        """meta.json ``layout``: the rule and every trial's padding, so a run can be reproduced
        (or its layouts correlated with its values) without recomputing anything."""
        if not self.enabled:
            return {"randomised": False}
        return {
            "randomised": True,
            "variable": PAD_VARIABLE,
            "max_bytes": self.max_bytes,
            "rule": "sha256('ordertrap-layout:<seed>:<trial>')[:8] mod (max_bytes + 1)",
            "pad_bytes": {str(t): pad_bytes(self.seed, t, self.max_bytes) for t in trials},
        }


class PaddedRunner:
    """A :class:`ProcessRunner` that adds the padding variable to every process it starts."""

    def __init__(self, runner: ProcessRunner, n: int) -> None:
        self.inner = runner
        self.value = "x" * n

    def __call__(
        self,
        argv: Sequence[str] | str,
        *,
        cwd: Path,
        timeout: float,
        env: Mapping[str, str] | None = None,
        progress: Callable[[str], None] | None = None,
    ) -> ProcessResult:
        return self.inner(
            argv, cwd=cwd, timeout=timeout, env={**(env or {}), PAD_VARIABLE: self.value}, progress=progress
        )
