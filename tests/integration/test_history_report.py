"""`history report`: the trend page, rendered by the CLI and checked in headless Chromium."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from gate.cli import main
from gate.history.store import Entry, Store
from tests.fakes.nightly import commit, night_date
from tests.integration.test_html_chromium import _chromium

HOSTILE = '<script>alert(1)</script><img src=x onerror=alert(2)>"'
NIGHTS = 24


def _history(store: Path) -> None:
    rng = np.random.default_rng(3)
    entries = []
    for k in range(NIGHTS):
        for name, step_at in (("json_parse", 12), ("json_dump", 12), ("steady", None), (HOSTILE, None)):
            level = 100.0 * (1.10 if step_at is not None and k >= step_at else 1.0)
            v = level * (1 + 0.004 * rng.standard_normal())
            entries.append(
                Entry(
                    run=f"night-{k}",
                    date=night_date(k),
                    seq=0,
                    commit=commit(k),
                    benchmark=name,
                    unit="ns/op",
                    higher_is_better=False,
                    estimate=v,
                    ci=(v * 0.99, v * 1.01),
                    n=15,
                )
            )
    Store(store).append(entries)


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("report")
    _history(root / "store")
    out = root / "history.html"
    args = ["history", "report", "--store", str(root / "store"), "--out", str(out)]
    assert main([*args, "--repo-url", "https://github.com/acme/widgets"]) == 0
    return out


def test_page_is_self_contained_and_escapes_names(page: Path) -> None:
    html = page.read_text()
    assert "<script>alert(1)" not in html and "<img src=x" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    # no external resource: every src/href is a link for the reader, not a fetch
    assert " src=" not in html.replace("src=x", "") and "<link" not in html and "@import" not in html


@pytest.mark.chromium
def test_page_renders_in_chromium_with_charts_and_marked_change_points(page: Path, tmp_path: Path) -> None:
    proc = _chromium(tmp_path, "--dump-dom", page.as_uri())
    assert proc.returncode == 0, proc.stderr[-2000:]
    dom = proc.stdout
    assert 'id="js-error"' not in dom, dom[dom.find("js-error") - 200 :][:600]
    assert 'data-ready="1"' in dom  # the filter script ran to its end
    assert "4 of 4 shown" in dom
    assert dom.count('<svg class="trend"') == 4
    compare = f"https://github.com/acme/widgets/compare/{commit(11)}...{commit(12)}"
    # both benchmarks that stepped carry a marked change point linked to the commit range
    assert dom.count(f'<g class="cp regression"><a href="{compare}">') == 2
    assert "moved together with 1 other(s)" in dom
    assert "<script>alert(1)" not in dom and "&lt;script&gt;alert(1)&lt;/script&gt;" in dom


@pytest.mark.chromium
def test_filter_hides_unchanged_benchmarks(page: Path, tmp_path: Path) -> None:
    html = page.read_text().replace('id="changed">', 'id="changed" checked>')
    checked = tmp_path / "checked.html"
    checked.write_text(html)
    proc = _chromium(tmp_path, "--dump-dom", checked.as_uri())
    assert proc.returncode == 0 and 'data-ready="1"' in proc.stdout
    assert "2 of 4 shown" in proc.stdout


def test_page_has_dates_gaps_readable_units_and_a_wide_ci_does_not_squash(tmp_path: Path) -> None:
    rng = np.random.default_rng(8)
    entries = []
    for k in range(30):
        day = k if k < 15 else k + 200  # a 200-day hole after night 14
        v = 3.26e7 * (1 + 0.004 * rng.standard_normal())
        ci = (v * 0.01, v * 50) if k == 5 else (v * 0.99, v * 1.01)  # one absurdly wide CI
        entries.append(
            Entry(
                run=f"n{k}",
                date=night_date(day),
                seq=0,
                commit=commit(k),
                benchmark="big",
                unit="ns",
                higher_is_better=False,
                estimate=v,
                ci=ci,
                n=15,
            )
        )
    Store(tmp_path / "s").append(entries)
    out = tmp_path / "p.html"
    assert main(["history", "report", "--store", str(tmp_path / "s"), "--out", str(out)]) == 0
    html = out.read_text()
    assert "e+07" not in html and " ms</text>" in html  # 32.6 ms, not 3.26e+07
    assert night_date(0)[:10] in html and "1 gap(s) in the dates" in html and "no data from" in html
    assert html.count('<polyline class="line"') == 2  # the line is broken at the gap
    ys = [
        float(m)
        for m in re.findall(r'<polyline class="line" points="([^"]+)"', html)[0]
        .replace(",", " ")
        .split()[1::2]
    ]
    assert max(ys) - min(ys) > 60  # the values use the chart's height, not a sliver beside the CI


def test_series_too_short_for_change_points_are_listed(tmp_path: Path) -> None:
    e = Entry(run="r", date=night_date(1), seq=0, commit=commit(1), benchmark="lonely", unit="ns",
              higher_is_better=False, estimate=5.0, ci=None, n=1)  # fmt: skip
    Store(tmp_path / "s").append([e])
    out = tmp_path / "p.html"
    assert main(["history", "report", "--store", str(tmp_path / "s"), "--out", str(out)]) == 0
    html = out.read_text()
    assert "1 series too short for change points" in html and "<code>lonely</code>: 1 point(s)" in html


def test_report_draws_the_change_points_of_a_changes_file_and_refuses_a_stale_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The nightly runs `history changes` and then `report`: `--changes` draws that file's change
    points instead of finding them a second time, and a file from before the newest night is
    refused (its steps would be drawn at the wrong commits)."""
    store = tmp_path / "store"
    _history(store)
    changes = tmp_path / "changes.json"
    assert main(["history", "changes", "--store", str(store), "--json", str(changes)]) == 0
    own, reused = tmp_path / "own.html", tmp_path / "reused.html"
    assert main(["history", "report", "--store", str(store), "--out", str(own)]) == 0
    assert (
        main(["history", "report", "--store", str(store), "--out", str(reused), "--changes", str(changes)])
        == 0
    )
    strip = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")  # the page's own creation time
    assert strip.sub("", own.read_text()) == strip.sub("", reused.read_text())
    assert '<g class="cp regression">' in own.read_text()

    e = Entry(run="night-late", date=night_date(NIGHTS + 1), seq=0, commit=commit(NIGHTS + 1),
              benchmark="steady", unit="ns/op", higher_is_better=False, estimate=100.0, ci=None, n=15)  # fmt: skip
    Store(store).append([e])
    capsys.readouterr()
    assert main(["history", "report", "--store", str(store), "--out", str(tmp_path / "stale.html"),
                 "--changes", str(changes)]) != 0  # fmt: skip
    err = capsys.readouterr().err
    assert "newest night" in err and "fix: write it again from this store" in err
    assert not (tmp_path / "stale.html").exists()
