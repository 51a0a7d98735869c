"""Every trial runs with its own environment size (gate/engine/layout.py), reproducibly from the seed."""

from __future__ import annotations

from pathlib import Path

import pytest

from gate.engine.layout import MAX_PAD_BYTES, PAD_VARIABLE, Layout, pad_bytes
from gate.errors import ConfigError
from tests.integration.test_run_cli import load, make_repo, run_cli

# the benchmark's value is the length of the padding it sees (sh's ${#VAR})
PRINT_PAD = f'[[benchmark]]\nname = "pad"\ncommand = "echo ${{#{PAD_VARIABLE}}}"\nunit = "B"\n'


def _config(extra: str = "") -> str:
    return (
        f'[suite]\nadapter = "command"\ntimeout = 30\n{extra}\n{PRINT_PAD}'
        "[full]\nsuite_runs = 3\niterations = 4\nmeasurements = 1\n"
    )


def test_each_trial_sees_its_recorded_padding_and_a_rerun_repeats_it(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, _config())
    out1, out2 = tmp_path / "out1", tmp_path / "out2"
    assert run_cli(repo, out1, "--seed", "7") == 0
    assert run_cli(repo, out2, "--seed", "7") == 0
    df, meta = load(out1)
    layout = meta["layout"]
    assert layout["randomised"] is True and layout["variable"] == PAD_VARIABLE
    seen = {int(t): int(v) for t, v in zip(df.trial, df.value, strict=True)}
    assert seen == {int(t): n for t, n in layout["pad_bytes"].items()}
    assert len(set(seen.values())) > len(seen) // 2  # a different size in (nearly) every trial
    assert all(0 <= n <= MAX_PAD_BYTES for n in seen.values())
    df2, _ = load(out2)
    assert df2.value.tolist() == df.value.tolist()  # same seed, same layouts


def test_randomise_layout_false_leaves_the_environment_alone(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, _config("randomise_layout = false"))
    out = tmp_path / "out"
    assert run_cli(repo, out, "--seed", "7") == 0
    df, meta = load(out)
    assert meta["layout"] == {"randomised": False}
    assert set(df.value) == {0}


def test_the_padding_is_a_pure_function_of_seed_and_trial() -> None:
    sizes = [pad_bytes(1, t) for t in range(1, 2001)]
    assert sizes == [pad_bytes(1, t) for t in range(1, 2001)]
    assert sizes != [pad_bytes(2, t) for t in range(1, 2001)]
    # spread over the whole page: every 512-byte eighth is hit
    assert {s // 512 for s in sizes} == set(range(8)) | ({8} if MAX_PAD_BYTES in sizes else set())
    assert Layout(1).meta([1, 2])["pad_bytes"] == {"1": pad_bytes(1, 1), "2": pad_bytes(1, 2)}


def test_a_non_boolean_setting_is_refused_with_the_fix(tmp_path: Path) -> None:
    from gate.config.project_config import parse_config

    with pytest.raises(ConfigError, match="randomise_layout must be true or false"):
        parse_config(_config('randomise_layout = "yes"').encode(), tmp_path / ".ordertrap.toml")


def test_run_records_each_benchmarks_threshold_for_analyze(tmp_path: Path) -> None:
    text = _config() + '[[benchmark]]\nname = "fast"\ncommand = "echo 1"\nthreshold_pct = 8.5\n'
    repo = make_repo(tmp_path, text)
    out = tmp_path / "out"
    assert run_cli(repo, out, "--seed", "7") == 0
    _, meta = load(out)
    assert meta["thresholds"] == {"fast": 8.5}
