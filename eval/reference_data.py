"""Where the reference data behind the documentation's tables is, where it comes from, and a loud
stop when it is absent.

The data is third-party and carries no licence, so the repository holds none of it: it is read in
place from one folder, ``$ORDERTRAP_REFERENCE_DATA`` when that is set, else ``../shared/data``
beside the repository (docs/development.md "Reproducing the validation tables"). The evaluation scripts, the
benchmarks of the gate and the tests (``tests/conftest.py``) all find it through
:func:`reference_data`. A script whose data is missing exits with status 2 and says where to get it;
it never prints an empty table with status 0.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ENV = "ORDERTRAP_REFERENCE_DATA"
DEFAULT = Path(__file__).resolve().parent.parent.parent / "shared" / "data"


def reference_data(*parts: str) -> Path:
    """The reference data folder (``$ORDERTRAP_REFERENCE_DATA`` or ``../shared/data``), joined with ``parts``."""
    root = os.environ.get(ENV)
    return (Path(root) if root else DEFAULT).joinpath(*parts)


# folder -> (public source, files and layout the scripts read)
SOURCES: dict[str, tuple[str, str]] = {
    "uoptime_go": (
        "µOpTime data set 1 (Japke et al., TOSEM 2025): github.com/njapke/uoptime-replication-package "
        "@ 938e566 (Zenodo 10.5281/zenodo.14725868), optimizer/dataset_1/go_data_path/{prometheus,toml}-v*.csv",
        "<project>/measurements.csv with columns project, version, benchmark, instance, suite_run, "
        "iteration, second, n, ns_per_op for the projects prometheus-common and toml",
    ),
    "icpe_jmh": (
        "ICPE 2023 data challenge (Traini et al., EMSE 2023): github.com/SEALABQualityGroup/"
        "icpe-data-challenge-jmh @ 2204bcf, timeseries/*.json; steady-state labels from "
        "github.com/SEALABQualityGroup/steady-state, data/classification/",
        "index.csv (file, original name, repository, revision, labels) and the icpe_NN.json files it names",
    ),
    "ordersage_stream_npb": (
        "OrderSage (ATC'23) artifact: github.com/ordersage/paper-artifact @ aed526a, "
        "20211017_14:40:18_stream_npb_results/",
        "trials.csv with columns experiment, run_index, order_type, position_in_run, test, value",
    ),
}


def missing_message(path: Path, folder: str) -> str:
    source, layout = SOURCES[folder]
    return (
        f"error: reference data {path} is missing.\n"
        f"  It is a copy, values unchanged, of {source}; expected layout: {layout}.\n"
        f"  It is not in this repository (no licence). fix: place the folder at "
        f"{reference_data(folder)} (set {ENV} to the folder holding it; default ../shared/data "
        f"beside the repository) or pass its path"
    )


def require(path: Path, folder: str) -> Path:
    """``path`` if it exists; otherwise print where the data comes from and exit with status 2."""
    if not path.exists():
        print(missing_message(path, folder), file=sys.stderr)
        raise SystemExit(2)
    return path
