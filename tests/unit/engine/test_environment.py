"""Environment fingerprint on a fake /sys tree: values read, missing files -> unknown, warnings carry fixes."""

from __future__ import annotations

from pathlib import Path

from gate.engine import environment


def _sys(tmp_path: Path, files: dict[str, str]) -> str:
    root = tmp_path / "cpu"
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text + "\n")
    root.mkdir(exist_ok=True)
    return str(root)


def test_prepared_machine_has_no_warnings(tmp_path):
    root = _sys(
        tmp_path,
        {
            "cpu0/cpufreq/scaling_governor": "performance",
            "cpu1/cpufreq/scaling_governor": "performance",
            "intel_pstate/no_turbo": "1",
            "smt/active": "0",
        },
    )
    aslr = tmp_path / "aslr"
    aslr.write_text("2\n")
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nmodel name\t: Test CPU @ 3.0GHz\n")
    env = environment.fingerprint(root=root, cpuinfo_path=str(cpuinfo), aslr_path=str(aslr))
    assert env["governor"] == "performance" and env["turbo"] is False and env["smt"] is False
    assert env["aslr"] == 2 and env["cpu_model"] == "Test CPU @ 3.0GHz"
    assert env["tools"]["python"]
    env["loadavg"] = [0.0, 0.0, 0.0]
    assert environment.check(env) == []


def test_unprepared_machine_warns_with_fixes(tmp_path):
    root = _sys(
        tmp_path,
        {
            "cpu0/cpufreq/scaling_governor": "powersave",
            "cpu1/cpufreq/scaling_governor": "performance",
            "cpufreq/boost": "1",
            "smt/active": "1",
        },
    )
    aslr = tmp_path / "aslr"
    aslr.write_text("0\n")
    env = environment.fingerprint(root=root, cpuinfo_path=str(tmp_path / "none"), aslr_path=str(aslr))
    assert env["governor"] == "performance,powersave" and env["turbo"] is True and env["smt"] is True
    env["loadavg"], env["cores"] = [3.0, 1.0, 1.0], 2
    warnings = environment.check(env)
    assert [w["code"] for w in warnings] == ["governor", "turbo", "smt", "aslr", "load"]
    assert all(w["message"] and w["action"] for w in warnings)
    assert "performance" in warnings[0]["action"] and "randomize_va_space" in warnings[3]["action"]


def test_missing_files_are_unknown_not_a_crash(tmp_path):
    env = environment.fingerprint(
        root=str(tmp_path / "nothing"), cpuinfo_path=str(tmp_path / "x"), aslr_path=str(tmp_path / "y")
    )
    assert (
        env["governor"] == "unknown" and env["turbo"] is None and env["smt"] is None and env["aslr"] is None
    )
    env["loadavg"] = None
    # nothing can be verified, and the gate says so (a VM or container without cpufreq)
    assert [w["code"] for w in environment.check(env)] == ["cpufreq_unknown"]


def test_tool_versions_are_probed_outside_the_checkout(tmp_path, monkeypatch):
    # a PR's go.mod can name a toolchain that `go version` would fetch and run: probe from "/" only
    monkeypatch.chdir(tmp_path)
    assert environment._tool_version(["sh", "-c", 'echo "$(pwd) $GOTOOLCHAIN"']) == "/ local"
