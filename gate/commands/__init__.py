"""One module per subcommand; see :mod:`gate.cli` for the protocol.

:func:`call_verb` is where a :class:`~gate.errors.GateError` becomes a message and an exit code:
the CLI runs every subcommand through it, and the actions (gate/action/)
run the verbs' keyword cores through it, so a verb fails the same way whoever calls it.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Final

from gate.bidi import visible_output
from gate.errors import GateError
from gate.workflow_commands import inert_output

EXIT_INTERRUPTED: Final = 130


@contextmanager
def _sigterm_as_ctrl_c() -> Iterator[None]:
    """SIGTERM (a cancelled CI job, `kill`) behaves like Ctrl-C everywhere, not only while trials
    run (the driver's StopFlag handles both there): a build, discovery or reset in progress is
    killed with its process group and the command exits 130, instead of dying and orphaning it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def call_verb(name: str, call: Callable[[], int]) -> int:
    """Run the verb ``name`` (``call``) and give its exit status: a GateError is printed as
    ``ordertrap-gate NAME: error: ...`` and exits with its code, Ctrl-C or SIGTERM with 130.
    On GitHub, nothing printed (benchmark names, quoted framework errors) can be read by the
    runner as a workflow command; the gate's own commands go past this filter. Everywhere,
    bidirectional controls in what is printed are shown, not obeyed (gate.bidi)."""
    with visible_output(), inert_output(), _sigterm_as_ctrl_c():
        try:
            return int(call())
        except GateError as exc:
            print(f"ordertrap-gate {name}: error: {exc}", file=sys.stderr)
            return exc.exit_code
        except KeyboardInterrupt:
            print(f"ordertrap-gate {name}: interrupted", file=sys.stderr)
            return EXIT_INTERRUPTED
        except BrokenPipeError:
            return 0
