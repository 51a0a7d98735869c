"""Reports people read: the PR comment, the job summary and the HTML report with plots.

Public API (used by ``report`` and ``publish``; ``analysis_json`` is :mod:`gate.files.analysis_json`)::

    from gate.render import render, RenderContext, COMMENT_MARKER, COMMENT_LIMIT, SUMMARY_LIMIT
    text = render(analysis_json.read(path), "comment" | "summary" | "html", RenderContext(...))
"""

from __future__ import annotations

from gate.render.render import (
    COMMENT_LIMIT,
    COMMENT_MARKER,
    MAX_PLOTS,
    SUMMARY_LIMIT,
    RenderContext,
    render,
)

__all__ = [
    "COMMENT_LIMIT",
    "COMMENT_MARKER",
    "MAX_PLOTS",
    "SUMMARY_LIMIT",
    "RenderContext",
    "render",
]
