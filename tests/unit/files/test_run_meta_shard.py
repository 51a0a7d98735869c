"""meta.json ``shard`` (gate.files.run_meta.ShardRecord): written, read back unchanged, and a
malformed record left out with a ``meta_invalid`` warning, never read as an unsharded run's."""

from __future__ import annotations

import json
from pathlib import Path

from gate.files import run_meta
from gate.files.run_meta import RunMeta, ShardRecord

RECORD = ShardRecord(
    index=2, count=3, method="lpt", seed=7, cost_unit="s", suite=("a", "b", "c"),
    assignment={"a": 1, "b": 2, "c": 3}, expected=(1.0, 2.5, 3.0),
)  # fmt: skip


def test_the_shard_record_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "meta.json"
    run_meta.write(path, RunMeta(seed=7, shard=RECORD))
    back = run_meta.read(path)
    assert back.shard == RECORD and back.shard.label == "2/3" and back.shard.benchmarks_of(2) == ["b"]
    assert "shard" not in RunMeta(seed=7).to_json()  # an unsharded run writes none


def test_a_split_that_does_not_cover_the_suite_is_invalid(tmp_path: Path) -> None:
    doc = RunMeta(seed=7, shard=RECORD).to_json()
    doc["shard"]["assignment"] = {"a": 1, "b": 4}
    (tmp_path / "meta.json").write_text(json.dumps(doc))
    warnings: list[dict[str, str]] = []
    meta = run_meta.read_beside(tmp_path / "trials.csv", warnings)
    assert meta is not None and meta.shard is None
    assert [w["code"] for w in warnings] == ["meta_invalid"] and "shard.assignment" in warnings[0]["message"]
