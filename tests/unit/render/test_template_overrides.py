"""Template overrides: one block replaced, the comment marker kept, an undefined value an error."""

from __future__ import annotations

from pathlib import Path

import pytest

from gate.errors import InputError
from gate.render import COMMENT_MARKER, RenderContext, render
from tests.fakes import analyses


def test_override_one_block(tmp_path: Path) -> None:
    (tmp_path / "comment.md.j2").write_text(
        '{% extends "builtin/comment.md.j2" %}\n{% block time %}CUSTOM TIME {{ v.n_benchmarks }}\n{% endblock %}\n',
        encoding="utf-8",
    )
    text = render(analyses.mixed(), "comment", RenderContext(template_dir=str(tmp_path)))
    assert "CUSTOM TIME 7" in text
    assert "Measured in" not in text
    assert "Performance gate" in text and text.startswith(COMMENT_MARKER)


def test_override_without_marker_gets_the_marker(tmp_path: Path) -> None:
    (tmp_path / "comment.md.j2").write_text("just {{ v.decision }}\n", encoding="utf-8")
    text = render(analyses.mixed(), "comment", RenderContext(template_dir=str(tmp_path)))
    assert text == COMMENT_MARKER + "\njust fail\n"


def test_undefined_value_in_a_template_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "summary.md.j2").write_text("{{ v.no_such_field }}\n", encoding="utf-8")
    with pytest.raises(InputError, match="undefined"):
        render(analyses.mixed(), "summary", RenderContext(template_dir=str(tmp_path)))
