"""Warning lines a person can scan: a shared action is written once, above the warnings it is
for (summary, HTML report); a merged comment line says its message is one example."""

from __future__ import annotations

import re

from gate.render import render
from tests.fakes import analyses

ACTION = "quiet the runner"


def _noisy_run() -> dict:
    benches = [
        analyses.benchmark(
            f"bench_{i}",
            warnings=[
                {"code": "unstable", "message": f"bench_{i} is noisy: RMAD {7 + i}.0%", "action": ACTION}
            ],
        )
        for i in range(4)
    ]
    benches.append(
        analyses.benchmark(
            "odd", warnings=[{"code": "unstable", "message": "odd is noisy", "action": "fix odd"}]
        )
    )
    return analyses.analysis(benches)


def test_html_writes_a_shared_action_once_above_its_warnings() -> None:
    page = render(_noisy_run(), "html")
    section = page.split("<h2>Warnings</h2>", 1)[1].split("<h2>", 1)[0]
    assert section.count(ACTION) == 1
    group = re.search(r"<li><b>do:</b> quiet the runner — for these 4:<ul>(.*?)</ul></li>", section, re.S)
    assert group is not None
    items = re.findall(r"<li><code>(bench_\d)</code>: bench_\d is noisy: RMAD (\d+)\.0%</li>", group.group(1))
    assert sorted(items) == [(f"bench_{i}", str(7 + i)) for i in range(4)]
    # a warning with an action of its own keeps its one line
    assert "<li><code>odd</code>: odd is noisy → <b>do:</b> fix odd</li>" in section


def test_comment_line_presents_the_message_as_one_example() -> None:
    text = render(_noisy_run(), "comment")
    (line,) = [line for line in text.splitlines() if line.endswith(f"→ **do:** {ACTION}")]
    assert re.match(
        r"- (`bench_\d`, ){3}`bench_\d`: 4 warnings like “bench\\_\d is noisy: RMAD \d+\.0%” →", line
    )
