"""What the GitHub runner would execute from the gate's output: only the gate's own commands.

``runner_commands`` reads a log the way actions/runner does (``ActionCommandManager``): a fence
(``::stop-commands::T`` ... ``::T::``) disables everything inside; outside, a line whose trimmed
text starts with ``::`` is a command, and so is any line containing the older ``##[`` form."""

from __future__ import annotations

import io
import re
import sys

import pytest

from gate.workflow_commands import InertText, emit, group, inert_output, print_untrusted


def runner_commands(log: str) -> list[str]:
    commands: list[str] = []
    fence: str | None = None
    for line in re.split(r"\r\n|\r|\n", log):  # the runner splits at \r too
        text = line.strip()
        if fence is not None:
            if text == f"::{fence}::":
                fence = None
            continue
        if text.startswith("::"):
            name = text[2:].split("::", 1)[0].split(" ", 1)[0]
            if name == "stop-commands":
                fence = text.split("::")[2]
            commands.append(name)
        elif "##[" in line:
            commands.append("v1:" + line[line.index("##[") + 3 :].split("]", 1)[0].split(" ", 1)[0])
    return commands


def test_the_simulator_sees_what_an_unprotected_stream_would_leak() -> None:
    assert runner_commands("x ##[error]spoof\n  ::warning::spoof\nplain") == ["v1:error", "warning"]


@pytest.mark.parametrize(
    "writes",
    [
        ["[trial 1/4] bench ##[error title=x;]spoof@HEAD\n"],
        ["error: bad output:\n::error title=spoof::gate passed\n"],
        ["error: bad output:\n   \t::set-output name=x::y\n"],
        ["name ##", "[warning]split across writes\n"],
        ["name #", "#[warning]split across writes\n"],
        ["line\n", ":", ":error::split at a line start\n"],
        ["line\n  ", "::error::after blanks written apart\n"],
        ["::error::at the very start of the stream\n"],
        ["name x\r::error title=pwned::INJECTED\n"],
        ["progress\r  ::warning::after a carriage return\n"],
        ["line\n  :", ":error::blanks and a colon, then the rest\n"],
        ["line\n" + " " * 100, "::error::after a long blank start\n"],
        ["ok ::a", "b::c\n", "::x::y ##", "[z]\n"],
    ],
)
def test_inert_text_leaves_no_command_and_only_adds_zero_width_spaces(writes: list[str]) -> None:
    sink = io.StringIO()
    stream = InertText(sink)
    for w in writes:
        assert stream.write(w) == len(w)
    assert runner_commands(sink.getvalue()) == []
    assert sink.getvalue().replace("\u200b", "") == "".join(writes)


def test_a_sequence_already_cut_is_not_cut_again_in_the_next_write() -> None:
    sink = io.StringIO()
    stream = InertText(sink)
    stream.write("::error::x")
    stream.write("y\n")
    assert sink.getvalue() == ":\u200b:error::xy\n"


def test_ordinary_text_is_unchanged() -> None:
    sink = io.StringIO()
    text = "[trial 3/10] elapsed 00:01 ETA 00:03 parse@HEAD~1\nC++ a::b::c # [1] ok\n"
    InertText(sink).write(text)
    assert sink.getvalue() == text


def test_on_github_the_gates_own_commands_pass_and_everything_else_is_inert(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    with inert_output({"GITHUB_ACTIONS": "true"}):
        print("progress ##[error]from a benchmark name", file=sys.stderr)
        emit("warning", "the gate's own annotation", {"title": "ordertrap-gate"})
        print_untrusted("::error::benchmark output, fenced", stream=sys.stderr)
        print("error:\n::error::quoted framework output", file=sys.stderr)
    out, err = capsys.readouterr()
    assert runner_commands(out) == ["warning"]
    assert runner_commands(err) == ["stop-commands"]
    assert not isinstance(sys.stdout, InertText)  # restored


def test_off_github_output_is_untouched(capsys: pytest.CaptureFixture[str]) -> None:
    with inert_output({}):
        print("::error::local terminal")
    assert capsys.readouterr().out == "::error::local terminal\n"


def test_off_github_benchmark_output_is_printed_without_fences(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A terminal reads no workflow command: the fence and group lines would only be noise."""
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    with group("build"):
        print_untrusted("::error::benchmark output", stream=sys.stderr)
    out, err = capsys.readouterr()
    assert (out, err) == ("", "::error::benchmark output\n")
