"""The bwrap command line the sandbox builds (gate/engine/sandbox.py): the most specific rule wins, and a
process may write only the area it starts in. Real paths; nothing is run here
(tests/integration/test_sandbox.py runs the sandbox)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gate.config.project_config import parse_config
from gate.engine.sandbox import Area, Sandbox
from gate.errors import ConfigError


def _binds(options: list[str]) -> list[tuple[str, str]]:
    """(kind, destination) of each mount option, in order."""
    out = []
    for i, arg in enumerate(options):
        if arg in ("--bind", "--ro-bind"):
            out.append((arg, options[i + 2]))
    return out


@pytest.fixture
def layout(tmp_path: Path) -> dict[str, Path]:
    paths = {
        "home": tmp_path / "home",
        "runner": tmp_path / "home" / "actions-runner",
        "repo": tmp_path / "home" / "actions-runner" / "_work" / "proj" / "proj",
    }
    paths["git"] = paths["repo"] / ".git"
    paths["out"] = paths["repo"] / "ordertrap-trials"
    paths["base"] = paths["out"] / "worktrees" / "base"
    paths["head"] = paths["out"] / "worktrees" / "head"
    paths["base scratch"] = paths["out"] / "scratch" / "base"
    for p in paths.values():
        p.mkdir(parents=True, exist_ok=True)
    (paths["runner"] / ".credentials").write_text("{}")
    return paths


def _sandbox(layout: dict[str, Path]) -> Sandbox:
    return Sandbox(
        "/usr/bin/bwrap",
        writable=[layout["home"]],
        read_only=[layout["runner"], layout["repo"], layout["git"], layout["out"]],
        hidden=[layout["runner"] / ".credentials"],
        areas=[
            Area((layout["base"], layout["base scratch"])),
            Area((layout["head"],)),
            Area((layout["repo"],)),
        ],
        drop_caps=True,
    )


def test_a_trial_may_write_its_own_worktree_and_scratch_only(layout):
    box = _sandbox(layout)
    argv = box.wrap(["/bin/true"], cwd=layout["base"], filter_fd=3)  # 3: where bwrap reads the filter
    assert argv[0] == "/usr/bin/bwrap" and argv[-1] == "/bin/true"
    options = argv[1 : argv.index("--")]
    assert options[:6] == ["--die-with-parent", "--unshare-pid", "--cap-drop", "ALL", "--ro-bind", "/"]
    binds = _binds(options)
    assert binds == [
        ("--ro-bind", "/"),
        ("--bind", str(layout["home"])),
        ("--ro-bind", str(layout["runner"])),
        ("--ro-bind", str(layout["runner"] / ".credentials")),  # /dev/null over it
        # the repository, its .git and OUT: read-only through the runner's bind, no mount of their own
        ("--bind", str(layout["base scratch"])),
        ("--bind", str(layout["base"])),
    ]
    hidden = options.index(str(layout["runner"] / ".credentials"))
    assert options[hidden - 1] == "/dev/null"
    # the seccomp filter (gate/engine/seccomp.py) comes last, read from the descriptor given
    refuse = ["--seccomp", "3"] if box.seccomp is not None else []  # None: a host of unknown ABIs
    assert options[-4 - len(refuse) :] == ["--proc", "/proc", "--dev", "/dev", *refuse]


def test_the_other_version_and_the_repository_stay_read_only(layout):
    box = _sandbox(layout)
    head = _binds(box.options(box._area_of(str(layout["head"] / "sub"))))
    assert ("--bind", str(layout["head"])) in head
    assert ("--bind", str(layout["base"])) not in head and ("--bind", str(layout["repo"])) not in head
    # a reset runs in the repository: its work tree is writable, .git and OUT are not
    reset = _binds(box.options(box._area_of(str(layout["repo"]))))
    assert reset.index(("--bind", str(layout["repo"]))) < reset.index(("--ro-bind", str(layout["git"])))
    assert ("--ro-bind", str(layout["repo"])) not in reset and ("--ro-bind", str(layout["out"])) in reset
    # anywhere else nothing of the run is writable
    elsewhere = _binds(box.options(box._area_of("/")))
    assert [d for kind, d in elsewhere if kind == "--bind"] == [str(layout["home"])]


def test_sandbox_setting_is_checked():
    body = '[[benchmark]]\nname = "a"\ncommand = "true"\n'
    assert parse_config(b"[suite]\n" + body.encode(), Path("x.toml")).suite.sandbox == "auto"
    config = parse_config(b'[suite]\nsandbox = "off"\n' + body.encode(), Path("x.toml"))
    assert config.suite.sandbox == "off"
    with pytest.raises(ConfigError, match=r"\[suite\].sandbox = 'no' is not one of auto, on, off"):
        parse_config(b'[suite]\nsandbox = "no"\n' + body.encode(), Path("x.toml"))


def test_each_area_sees_its_own_private_home_and_tmp_with_the_toolchains_read_only(layout, tmp_path):
    home = layout["home"]
    cargo_bin = home / ".cargo" / "bin"
    cargo_bin.mkdir(parents=True)
    private = {v: tmp_path / "private" / v for v in ("base", "head")}
    box = Sandbox(
        "/usr/bin/bwrap",
        writable=[],
        read_only=[cargo_bin, layout["out"]],
        areas=[Area((layout["base"],), private["base"]), Area((layout["head"],), private["head"])],
        home=home,
        temp=[Path("/tmp")],
        tmpfs=[Path("/run")],
        network=False,
        drop_caps=False,
    )
    for version in ("base", "head"):
        options = box.wrap(["/bin/true"], cwd=layout[version], filter_fd=3)
        binds = [(options[i], options[i + 1], options[i + 2]) for i, a in enumerate(options) if a == "--bind"]
        assert ("--bind", str(private[version] / "home"), str(home)) in binds
        assert ("--bind", str(private[version] / "tmp"), "/tmp") in binds
        mounts = _binds(options)
        # the toolchain is bound read-only after (over) the private home
        assert mounts.index(("--ro-bind", str(cargo_bin))) > mounts.index(("--bind", str(home)))
        assert "--unshare-net" in options
        assert options[options.index("--tmpfs") + 1] == "/run"
