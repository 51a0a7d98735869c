"""A fake GitHub REST API on 127.0.0.1 for driving the real PyGithub client in tests.

Stdlib only (``http.server``), an ephemeral port, state in memory. Payloads follow the shapes of
docs.github.com's REST reference for every endpoint the gate uses, including the headers PyGithub
reads (``X-RateLimit-*``, ``Link`` for pagination, ``Retry-After``):

* ``GET /user`` — 403 "Resource not accessible by integration" for an Actions-style token
* ``GET /repos/{o}/{r}``, ``GET /repos/{o}/{r}/pulls/{n}``, ``GET /repos/{o}/{r}/issues/{n}``
* ``GET /repos/{o}/{r}/issues/{n}/labels``, ``GET /repos/{o}/{r}/issues/{n}/events``
* ``GET|POST /repos/{o}/{r}/issues/{n}/comments`` (paginated; 422 over 65,536 characters)
* ``GET|PATCH /repos/{o}/{r}/issues/comments/{id}``
* ``GET /repos/{o}/{r}/commits/{sha}``, ``POST /repos/{o}/{r}/statuses/{sha}``,
  ``GET /repos/{o}/{r}/commits/{ref}/statuses`` (and its legacy route ``GET .../statuses/{ref}``)
* ``GET /repos/{o}/{r}/collaborators/{user}/permission``
* ``GET|POST /repos/{o}/{r}/issues`` (plain issues, paginated, ``state`` filter), ``PATCH
  /repos/{o}/{r}/issues/{n}``: what `history issue` uses

Tokens (``Authorization: token X`` / ``Bearer X``) select the identity: :data:`ACTIONS_TOKEN`
behaves like the default ``GITHUB_TOKEN`` (writes allowed, ``/user`` forbidden),
:data:`READ_ONLY_TOKEN` like a fork PR's token (every write 403), :data:`PAT_TOKEN` like a
personal token of ``octocat``. Failures are injected with :meth:`FakeGitHub.fail_next`.

Run standalone (e.g. for a container test): ``python -m tests.fakes.github_server --port-file F``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

ACTIONS_TOKEN = "ghs_fakeactionstoken000000000000000000"
READ_ONLY_TOKEN = "ghs_fakereadonlytoken00000000000000000"
PAT_TOKEN = "ghp_fakepersonaltoken0000000000000000000"
COMMENT_LIMIT = 65536
NOW = "2026-11-26T03:00:00Z"

BOT = {"login": "github-actions[bot]", "id": 41898282, "type": "Bot", "node_id": "MDM6Qm90NDE4OTgyODI="}
OCTOCAT = {"login": "octocat", "id": 1, "type": "User", "node_id": "MDQ6VXNlcjE="}


def _user(login: str, uid: int, kind: str = "User") -> dict[str, Any]:
    return {"login": login, "id": uid, "type": kind, "node_id": f"U_{uid}", "site_admin": False}


@dataclass
class Injected:
    method: str
    pattern: re.Pattern[str]
    status: int
    body: dict[str, Any]
    headers: dict[str, str]
    remaining: int


@dataclass
class Request:
    method: str
    path: str
    token_kind: str
    body: Any


@dataclass
class State:
    owner: str = "acme"
    repo: str = "widgets"
    default_branch: str = "main"
    pulls: dict[int, dict[str, Any]] = field(default_factory=dict)
    labels: dict[int, list[str]] = field(default_factory=dict)
    label_events: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    comments: dict[int, dict[str, Any]] = field(default_factory=dict)  # id -> comment (+ "_issue")
    statuses: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    issues: dict[int, dict[str, Any]] = field(default_factory=dict)  # plain issues (not pulls)
    permissions: dict[str, str] = field(default_factory=dict)
    requests: list[Request] = field(default_factory=list)
    injected: list[Injected] = field(default_factory=list)
    # (method, path pattern, callback): run once, before the first matching request is answered
    before: list[tuple[str, re.Pattern[str], Callable[[], None]]] = field(default_factory=list)


class FakeGitHub:
    """Start with ``with FakeGitHub() as gh:``; ``gh.url`` is the base_url for PyGithub."""

    def __init__(self, owner: str = "acme", repo: str = "widgets", host: str = "127.0.0.1") -> None:
        self.state = State(owner=owner, repo=repo)
        self.lock = threading.Lock()
        self._ids = itertools.count(1_000_001)
        handler = type("Handler", (_Handler,), {"fake": self})
        self.server = ThreadingHTTPServer((host, 0), handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, name="fake-github", daemon=True)

    # ---- lifecycle ----
    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def full_name(self) -> str:
        return f"{self.state.owner}/{self.state.repo}"

    def __enter__(self) -> FakeGitHub:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)

    # ---- scenario setup ----
    def add_pull(
        self,
        number: int,
        head_sha: str,
        base_sha: str = "b" * 40,
        *,
        labels: tuple[str, ...] = (),
        fork: str | None = None,
        head_ref: str = "feature",
    ) -> dict[str, Any]:
        head_repo = fork or self.full_name
        pull = {
            "number": number,
            "state": "open",
            "title": f"PR {number}",
            "head": {
                "sha": head_sha,
                "ref": head_ref,
                "label": f"{head_repo.split('/')[0]}:{head_ref}",
                "repo": self._repo_payload(head_repo, fork=fork is not None),
            },
            "base": {
                "sha": base_sha,
                "ref": self.state.default_branch,
                "label": f"{self.state.owner}:{self.state.default_branch}",
                "repo": self._repo_payload(self.full_name),
            },
            "user": _user("contributor", 77),
            "labels": [self._label(name) for name in labels],  # as in the event payload
        }
        with self.lock:
            self.state.pulls[number] = pull
            self.state.labels[number] = list(labels)
        return pull

    def set_labels(self, number: int, labels: tuple[str, ...]) -> None:
        with self.lock:
            self.state.labels[number] = list(labels)

    def add_label_event(self, number: int, label: str, actor: str) -> None:
        with self.lock:
            self.state.label_events.setdefault(number, []).append(
                {
                    "id": next(self._ids),
                    "event": "labeled",
                    "actor": _user(actor, 500),
                    "label": {"name": label, "color": "ededed"},
                    "created_at": NOW,
                }
            )

    def set_permission(self, user: str, permission: str) -> None:
        self.state.permissions[user] = permission

    def add_comment(self, number: int, body: str, login: str = "someone") -> dict[str, Any]:
        user = BOT if login == BOT["login"] else (OCTOCAT if login == "octocat" else _user(login, 900))
        with self.lock:
            return self._new_comment(number, body, user)

    def fail_next(
        self,
        method: str,
        path_regex: str,
        status: int,
        *,
        times: int = 1,
        message: str = "Server Error",
        headers: dict[str, str] | None = None,
    ) -> None:
        with self.lock:
            self.state.injected.append(
                Injected(
                    method.upper(),
                    re.compile(path_regex),
                    status,
                    {"message": message, "documentation_url": "https://docs.github.com/rest"},
                    headers or {},
                    times,
                )
            )

    def before_next(self, method: str, path_regex: str, callback: Callable[[], None]) -> None:
        """Run ``callback`` once, just before the next ``method`` request matching ``path_regex``
        is answered: what another job did between this client's requests."""
        with self.lock:
            self.state.before.append((method.upper(), re.compile(path_regex), callback))

    def add_issue(self, number: int, title: str, body: str, login: str = "someone") -> dict[str, Any]:
        user = BOT if login == BOT["login"] else (OCTOCAT if login == "octocat" else _user(login, 900))
        with self.lock:
            return self._new_issue(title, body, user, number)

    def _new_issue(
        self, title: str, body: str, user: dict[str, Any], number: int | None = None
    ) -> dict[str, Any]:
        number = number or max([*self.state.issues, *self.state.pulls, 0]) + 1
        base = f"{self.url}/repos/{self.full_name}"
        issue = {
            "id": 7000 + number,
            "node_id": f"I_{number}",
            "number": number,
            "title": title,
            "body": body,
            "state": "open",
            "url": f"{base}/issues/{number}",
            "html_url": f"https://github.com/{self.full_name}/issues/{number}",
            "comments_url": f"{base}/issues/{number}/comments",
            "user": dict(user),
            "labels": [],
            "comments": 0,
            "created_at": NOW,
            "updated_at": NOW,
        }
        self.state.issues[number] = issue
        return issue

    # ---- inspection ----
    def issues(self) -> list[dict[str, Any]]:
        with self.lock:
            return [dict(i) for i in self.state.issues.values()]

    def comments_on(self, number: int) -> list[dict[str, Any]]:
        with self.lock:
            return [dict(c) for c in self.state.comments.values() if c["_issue"] == number]

    def statuses_for(self, sha: str) -> list[dict[str, Any]]:
        with self.lock:
            return [dict(s) for s in self.state.statuses.get(sha, [])]

    def requests(self, method: str | None = None, contains: str = "") -> list[Request]:
        with self.lock:
            return [
                r
                for r in self.state.requests
                if (method is None or r.method == method) and contains in r.path
            ]

    # ---- payloads ----
    def _repo_payload(self, full_name: str, fork: bool = False) -> dict[str, Any]:
        owner, name = full_name.split("/")
        return {
            "id": abs(hash(full_name)) % 10**8,
            "node_id": "R_1",
            "name": name,
            "full_name": full_name,
            "private": False,
            "fork": fork,
            "owner": _user(owner, 2, "Organization"),
            "html_url": f"https://github.com/{full_name}",
            "url": f"{self.url}/repos/{full_name}",
            "default_branch": self.state.default_branch,
        }

    def _comment_payload(self, comment: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in comment.items() if not k.startswith("_")}

    def _new_comment(self, number: int, body: str, user: dict[str, Any]) -> dict[str, Any]:
        cid = next(self._ids)
        base = f"{self.url}/repos/{self.full_name}"
        comment = {
            "id": cid,
            "node_id": f"IC_{cid}",
            "url": f"{base}/issues/comments/{cid}",
            "html_url": f"https://github.com/{self.full_name}/pull/{number}#issuecomment-{cid}",
            "issue_url": f"{base}/issues/{number}",
            "body": body,
            "user": dict(user),
            "created_at": NOW,
            "updated_at": NOW,
            "author_association": "NONE",
            "_issue": number,
        }
        self.state.comments[cid] = comment
        return comment

    def _issue_payload(self, number: int) -> dict[str, Any]:
        pull = self.state.pulls[number]
        base = f"{self.url}/repos/{self.full_name}"
        return {
            "id": 5000 + number,
            "node_id": f"I_{number}",
            "number": number,
            "title": pull["title"],
            "state": "open",
            "url": f"{base}/issues/{number}",
            "html_url": f"https://github.com/{self.full_name}/pull/{number}",
            "comments_url": f"{base}/issues/{number}/comments",
            "user": pull["user"],
            "labels": [self._label(n) for n in self.state.labels.get(number, [])],
            "comments": len(self.comments_on_unlocked(number)),
            "pull_request": {"url": f"{base}/pulls/{number}"},
            "created_at": NOW,
            "updated_at": NOW,
        }

    def comments_on_unlocked(self, number: int) -> list[dict[str, Any]]:
        return [c for c in self.state.comments.values() if c["_issue"] == number]

    def _label(self, name: str) -> dict[str, Any]:
        return {
            "id": abs(hash(name)) % 10**6,
            "node_id": "LA_1",
            "name": name,
            "color": "d73a4a",
            "default": False,
            "description": None,
            "url": f"{self.url}/repos/{self.full_name}/labels/{name}",
        }

    # ---- routing ----
    def handle(
        self, method: str, path: str, query: dict[str, list[str]], token: str, body: Any
    ) -> tuple[int, Any, dict[str, str]]:
        kind = {ACTIONS_TOKEN: "actions", READ_ONLY_TOKEN: "read-only", PAT_TOKEN: "pat"}.get(
            token, "invalid"
        )
        with self.lock:
            due = [hook for hook in self.state.before if hook[0] == method and hook[1].search(path)][:1]
            for hook in due:
                self.state.before.remove(hook)
        for _, _, callback in due:
            callback()  # e.g. another client's write landing first (it takes the lock itself)
        with self.lock:
            self.state.requests.append(Request(method, path, kind, body))
            for inj in self.state.injected:
                if inj.remaining > 0 and inj.method == method and inj.pattern.search(path):
                    inj.remaining -= 1
                    return inj.status, inj.body, inj.headers
            if kind == "invalid":
                return (
                    401,
                    {"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"},
                    {},
                )
            if method in ("POST", "PATCH", "PUT", "DELETE") and kind == "read-only":
                return (
                    403,
                    {
                        "message": "Resource not accessible by integration",
                        "documentation_url": "https://docs.github.com/rest",
                    },
                    {},
                )
            return self._route(method, path, query, kind, body)

    def _route(
        self, method: str, path: str, query: dict[str, list[str]], kind: str, body: Any
    ) -> tuple[int, Any, dict[str, str]]:
        not_found: tuple[int, Any, dict[str, str]] = (
            404,
            {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"},
            {},
        )
        if path == "/user" and method == "GET":
            if kind != "pat":
                return (
                    403,
                    {
                        "message": "Resource not accessible by integration",
                        "documentation_url": "https://docs.github.com/rest/users/users#get-the-authenticated-user",
                    },
                    {},
                )
            return 200, OCTOCAT, {}
        prefix = f"/repos/{self.full_name}"
        if not path.startswith(prefix):
            return not_found
        rest = path[len(prefix) :]
        if rest == "" and method == "GET":
            return 200, self._repo_payload(self.full_name), {}
        if m := re.fullmatch(r"/pulls/(\d+)", rest):
            number = int(m[1])
            if number not in self.state.pulls or method != "GET":
                return not_found
            pull = dict(self.state.pulls[number])
            pull["labels"] = [self._label(n) for n in self.state.labels.get(number, [])]
            pull["url"] = f"{self.url}{prefix}/pulls/{number}"
            pull["html_url"] = f"https://github.com/{self.full_name}/pull/{number}"
            return 200, pull, {}
        if rest == "/issues":
            if method == "GET":
                want = (query.get("state") or ["open"])[0]
                listed = [i for i in self.state.issues.values() if want == "all" or i["state"] == want]
                return self._paginate(path, query, [dict(i) for i in listed])
            if method == "POST":
                data = body or {}
                if not data.get("title"):
                    return (
                        422,
                        {
                            "message": "Validation Failed",
                            "errors": [{"field": "title", "code": "missing_field"}],
                        },
                        {},
                    )
                if len(data.get("body") or "") > COMMENT_LIMIT:
                    return (
                        422,
                        {"message": "Validation Failed", "errors": [{"field": "body", "code": "custom"}]},
                        {},
                    )
                user = OCTOCAT if kind == "pat" else BOT
                return 201, dict(self._new_issue(data["title"], data.get("body") or "", user)), {}
        if (m := re.fullmatch(r"/issues/(\d+)", rest)) and int(m[1]) in self.state.issues:
            issue = self.state.issues[int(m[1])]
            if method == "PATCH":
                for key in ("title", "body", "state"):
                    if key in (body or {}):
                        issue[key] = body[key]
                issue["updated_at"] = NOW
            return 200, dict(issue), {}
        if m := re.fullmatch(r"/issues/(\d+)", rest):
            number = int(m[1])
            return (
                (200, self._issue_payload(number), {})
                if number in self.state.pulls and method == "GET"
                else not_found
            )
        if m := re.fullmatch(r"/issues/(\d+)/labels", rest):
            number = int(m[1])
            if number not in self.state.pulls:
                return not_found
            return 200, [self._label(n) for n in self.state.labels.get(number, [])], {}
        if m := re.fullmatch(r"/issues/(\d+)/events", rest):
            return 200, self.state.label_events.get(int(m[1]), []), {}
        if m := re.fullmatch(r"/issues/(\d+)/comments", rest):
            number = int(m[1])
            if number not in self.state.pulls:
                return not_found
            if method == "GET":
                return self._paginate(
                    path, query, [self._comment_payload(c) for c in self.comments_on_unlocked(number)]
                )
            if method == "POST":
                text = (body or {}).get("body", "")
                if len(text) > COMMENT_LIMIT:
                    return (
                        422,
                        {
                            "message": "Validation Failed",
                            "errors": [
                                {
                                    "resource": "IssueComment",
                                    "code": "custom",
                                    "field": "body",
                                    "message": f"body is too long (maximum is {COMMENT_LIMIT} characters)",
                                }
                            ],
                            "documentation_url": "https://docs.github.com/rest/issues/comments#create-an-issue-comment",
                        },
                        {},
                    )
                user = OCTOCAT if kind == "pat" else BOT
                return 201, self._comment_payload(self._new_comment(number, text, user)), {}
        if m := re.fullmatch(r"/issues/comments/(\d+)", rest):
            comment = self.state.comments.get(int(m[1]))
            if comment is None:
                return not_found
            if method == "DELETE":
                del self.state.comments[int(m[1])]
                return 204, None, {}
            if method == "PATCH":
                text = (body or {}).get("body", "")
                if len(text) > COMMENT_LIMIT:
                    return (
                        422,
                        {
                            "message": "Validation Failed",
                            "errors": [
                                {
                                    "field": "body",
                                    "code": "custom",
                                    "message": f"body is too long (maximum is {COMMENT_LIMIT} characters)",
                                }
                            ],
                        },
                        {},
                    )
                comment["body"] = text
                comment["updated_at"] = NOW
            return 200, self._comment_payload(comment), {}
        if m := re.fullmatch(r"/commits/([0-9a-f]{7,40})", rest):
            sha = m[1]
            return (
                200,
                {
                    "sha": sha,
                    "node_id": "C_1",
                    "url": f"{self.url}{prefix}/commits/{sha}",
                    "html_url": f"https://github.com/{self.full_name}/commit/{sha}",
                    "commit": {
                        "message": "change",
                        "author": {"name": "a", "email": "a@example.com", "date": NOW},
                    },
                    "parents": [],
                    "files": [],
                    "stats": {"total": 0, "additions": 0, "deletions": 0},
                },
                {},
            )
        # GET .../statuses/{ref} is the legacy route of the same list, the one PyGithub's
        # Commit.get_statuses() uses (docs.github.com, "List commit statuses for a reference")
        if (m := re.fullmatch(r"/commits/([^/]+)/statuses", rest)) or (
            method == "GET" and (m := re.fullmatch(r"/statuses/([^/]+)", rest))
        ):
            return self._paginate(path, query, list(reversed(self.state.statuses.get(m[1], []))))
        if (m := re.fullmatch(r"/statuses/([0-9a-f]{40})", rest)) and method == "POST":
            data = body or {}
            if data.get("state") not in ("error", "failure", "pending", "success"):
                return (
                    422,
                    {"message": "Validation Failed", "errors": [{"field": "state", "code": "invalid"}]},
                    {},
                )
            if len(data.get("description") or "") > 140:
                return (
                    422,
                    {
                        "message": "Validation Failed",
                        "errors": [
                            {
                                "field": "description",
                                "code": "custom",
                                "message": "description is too long (maximum is 140 characters)",
                            }
                        ],
                    },
                    {},
                )
            status = {
                "id": next(self._ids),
                "node_id": "SC_1",
                "url": f"{self.url}{prefix}/statuses/{m[1]}",
                "state": data["state"],
                "description": data.get("description"),
                "target_url": data.get("target_url"),
                "context": data.get("context", "default"),
                "created_at": NOW,
                "updated_at": NOW,
                "creator": BOT if kind != "pat" else OCTOCAT,
            }
            self.state.statuses.setdefault(m[1], []).append(status)
            return 201, status, {}
        if m := re.fullmatch(r"/collaborators/([^/]+)/permission", rest):
            permission = self.state.permissions.get(m[1], "none")
            return 200, {"permission": permission, "role_name": permission, "user": _user(m[1], 500)}, {}
        return not_found

    def _paginate(
        self, path: str, query: dict[str, list[str]], items: list[Any]
    ) -> tuple[int, Any, dict[str, str]]:
        per_page = int(query.get("per_page", ["30"])[0])
        page = int(query.get("page", ["1"])[0])
        last = max(1, -(-len(items) // per_page))
        chunk = items[(page - 1) * per_page : page * per_page]
        links = []
        if page < last:
            links.append(f'<{self.url}{path}?per_page={per_page}&page={page + 1}>; rel="next"')
            links.append(f'<{self.url}{path}?per_page={per_page}&page={last}>; rel="last"')
        return 200, chunk, ({"Link": ", ".join(links)} if links else {})


class _Handler(BaseHTTPRequestHandler):
    fake: FakeGitHub
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet: tests read fake.requests()
        pass

    def _serve(self) -> None:
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except json.JSONDecodeError:
            body = None
        auth = self.headers.get("Authorization", "")
        token = auth.split(" ", 1)[1] if " " in auth else ""
        status, payload, headers = self.fake.handle(
            self.command, parts.path, parse_qs(parts.query), token, body
        )
        data = b"" if status == 204 else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("X-RateLimit-Limit", "5000")
        self.send_header("X-RateLimit-Remaining", "4999")
        self.send_header("X-RateLimit-Used", "1")
        self.send_header("X-RateLimit-Reset", str(int(time.time()) + 3600))
        self.send_header("X-RateLimit-Resource", "core")
        self.send_header("X-GitHub-Api-Version", "2022-11-28")
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _serve


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--port-file", type=Path, required=True, help="write the base URL here once listening"
    )
    parser.add_argument("--pull", type=int, default=0, help="create this PR number (head sha 'a'*40)")
    args = parser.parse_args(argv)
    fake = FakeGitHub()
    if args.pull:
        fake.add_pull(args.pull, "a" * 40)
    with fake:
        args.port_file.write_text(fake.url)
        stop: Callable[[], None] = threading.Event().wait  # type: ignore[assignment]
        stop()
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
