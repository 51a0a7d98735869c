"""The HTML report in a real browser: Debian's headless Chromium, offline, fresh profile.

The report's ``window.onerror`` writes ``<div id="js-error">`` into the page and its script sets
``data-ready="1"`` on ``<body>`` when it finished; ``--dump-dom`` prints the DOM after load, so a
script error or a script that never ran is visible in the dump. One test breaks the script on
purpose to show the detector works.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from PIL import Image

from gate.render import RenderContext, render
from tests.conftest import require_tool
from tests.fakes import analyses

pytestmark = pytest.mark.chromium


def _chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    exe = require_tool("chromium")
    profile = tmp_path / f"profile-{len(list(tmp_path.iterdir()))}"
    profile.mkdir()
    return subprocess.run(
        [
            exe,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={profile}",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _dump(tmp_path: Path, page: str) -> str:
    html = tmp_path / "report.html"
    html.write_text(page, encoding="utf-8")
    proc = _chromium(tmp_path, "--dump-dom", html.as_uri())
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def test_report_renders_without_errors(tmp_path: Path) -> None:
    a = analyses.order_effects()
    page = render(
        a, "html", RenderContext(calibration=analyses.calibration(["alloc_big", "gc_heavy", "hash"]))
    )
    dom = _dump(tmp_path, page)
    assert 'id="js-error"' not in dom, dom[dom.find("js-error") - 200 :][:600]
    assert 'data-ready="1"' in dom  # the filter/sort script ran to its end
    assert "3 of 3 shown" in dom
    for name in ("alloc_big", "gc_heavy", "hash"):
        assert f"<code>{name}</code>" in dom
    assert dom.count("<svg") == 3


def test_hostile_names_stay_text_in_the_browser(tmp_path: Path) -> None:
    dom = _dump(tmp_path, render(analyses.hostile_names(), "html", RenderContext(max_plots=3)))
    assert 'id="js-error"' not in dom and 'data-ready="1"' in dom
    assert "<script>alert(1)" not in dom
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in dom
    assert '<img src="x"' not in dom and "<img src=x" not in dom


def test_a_script_error_is_detected(tmp_path: Path) -> None:
    (tmp_path / "tpl").mkdir()
    (tmp_path / "tpl" / "report.html.j2").write_text(
        '{% extends "builtin/report.html.j2" %}{% block script %}no_such_function();{% endblock %}',
        encoding="utf-8",
    )
    page = render(analyses.mixed(), "html", RenderContext(template_dir=str(tmp_path / "tpl")))
    dom = _dump(tmp_path, page)
    assert 'id="js-error"' in dom and "no_such_function" in dom
    assert 'data-ready="1"' not in dom


def test_screenshot_is_not_blank(tmp_path: Path) -> None:
    html = tmp_path / "report.html"
    html.write_text(render(analyses.mixed(), "html"), encoding="utf-8")
    shot = tmp_path / "shot.png"
    proc = _chromium(tmp_path, f"--screenshot={shot}", "--window-size=1000,1400", html.as_uri())
    assert proc.returncode == 0, proc.stderr[-2000:]
    with Image.open(shot) as image:  # Pillow comes with matplotlib
        assert image.size == (1000, 1400)
        rgb = image.convert("RGB")
        colours = rgb.getcolors(maxcolors=1 << 20) or []
    white = sum(n for n, c in colours if c == (255, 255, 255))
    assert white < 0.97 * 1000 * 1400, "the page should show text, tables and plots"
    assert len(colours) > 50, "plots and styled text have many colours; a blank or error page has few"


def test_follow_up_rounds_stay_text_in_the_browser(tmp_path: Path) -> None:
    dom = _dump(tmp_path, render(analyses.followup_rounds(), "html"))
    assert 'id="js-error"' not in dom and 'data-ready="1"' in dom
    assert '<table id="followup">' in dom
    # the hostile detail is text in its cell, and the <details>/<b> in it never became elements
    assert "&lt;/details&gt; **bold** @octocat #12 |pipe| [x](javascript:alert(1))" in dom
    assert "<b>x</b>" not in dom and 'href="javascript' not in dom
