"""The PyGithub client factory: the one place a :class:`github.Github` is built.

``base_url`` comes from ``GITHUB_API_URL`` (GitHub Enterprise Server, or the local fake server
in tests). Retries use PyGithub's own :class:`github.GithubRetry` (a ``urllib3.Retry``): it
retries 5xx with exponential backoff, and a 403 only when it is a rate limit — honouring
``Retry-After`` for secondary rate limits and ``X-RateLimit-Reset`` for the primary one
(docs.github.com, "Rate limits for the REST API", Exceeding the rate limit). A 403 that is not a
rate limit (a read-only token) is raised at once, so callers can explain it.
"""

from __future__ import annotations

from github import Auth, Github, GithubRetry
from urllib3.util.retry import Retry

from gate.errors import GitHubError
from gate.github.context import ActionContext

USER_AGENT = "ordertrap-gate"


def make_retry(total: int = 5, backoff_factor: float = 1.0, secondary_rate_wait: float = 60.0) -> GithubRetry:
    # urllib3 sleeps backoff_factor * 2**(n-1) seconds before the n-th retry (none before the
    # first), capped by backoff_max; a rate limit waits as long as GitHub asks, at most 10 min.
    # PyGithub retries GET/POST and urllib3's idempotent methods, but not PATCH: editing the gate's
    # comment (same body) is idempotent too, and without it one 502 on the edit lost the update.
    return GithubRetry(
        allowed_methods=Retry.DEFAULT_ALLOWED_METHODS | {"GET", "POST", "PATCH"},
        total=total,
        backoff_factor=backoff_factor,
        secondary_rate_wait=secondary_rate_wait,
        max_rate_limit_wait=600,
    )


def make_client(
    settings: ActionContext,
    *,
    retry: GithubRetry | None = None,
    timeout: int = 30,
    throttle: bool = True,
) -> Github:
    """A real PyGithub client for ``settings.api_url``.

    ``throttle`` keeps PyGithub's default spacing of requests (writes 1 s apart, as GitHub's
    "best practices for using the REST API" ask to avoid secondary limits).
    """
    if not settings.token:
        raise GitHubError(
            "no GitHub token: INPUT_GITHUB_TOKEN and GITHUB_TOKEN are both empty",
            fix="pass `github_token: ${{ github.token }}` to the action (the default), "
            "or export GITHUB_TOKEN for a local publish",
        )
    kwargs: dict[str, object] = {}
    if not throttle:
        kwargs = {"seconds_between_requests": None, "seconds_between_writes": None}
    return Github(
        auth=Auth.Token(settings.token.reveal()),
        base_url=settings.api_url,
        timeout=timeout,
        user_agent=USER_AGENT,
        retry=retry or make_retry(),
        lazy=True,  # objects are fetched when a field is read: fewer requests
        **kwargs,  # type: ignore[arg-type]
    )
