window.BENCHMARK_DATA = {
  "lastUpdate": 1795693663225,
  "repoUrl": "https://github.com/acme/widgets",
  "entries": {
    "Python Benchmark with pytest-benchmark": [
      {
        "commit": {
          "author": {
            "email": "t@example.com",
            "name": "t",
            "username": "t"
          },
          "committer": {
            "email": "t@example.com",
            "name": "t",
            "username": "t"
          },
          "distinct": true,
          "id": "a9d574f2cc769af51194ebe1d7c9e1ed06d8dd2e",
          "message": "bench",
          "timestamp": "2026-11-26T11:47:29+00:00",
          "tree_id": "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
          "url": "https://github.com/acme/widgets/commit/a9d574f2cc769af51194ebe1d7c9e1ed06d8dd2e"
        },
        "date": 1795693660974,
        "tool": "pytest",
        "benches": [
          {
            "name": "test_bench.py::test_fib10",
            "value": 117778.97083482025,
            "unit": "iter/sec",
            "range": "stddev: 0.000003166915798268953",
            "extra": "mean: 0.000008490480031468905 sec\nrounds: 25"
          },
          {
            "name": "test_bench.py::test_sort",
            "value": 147466.52609314458,
            "unit": "iter/sec",
            "range": "stddev: 0.0000025770949269393636",
            "extra": "mean: 0.000006781199954275508 sec\nrounds: 25"
          }
        ]
      },
      {
        "commit": {
          "author": {
            "email": "t@example.com",
            "name": "t",
            "username": "t"
          },
          "committer": {
            "email": "t@example.com",
            "name": "t",
            "username": "t"
          },
          "distinct": true,
          "id": "1475d1775f68f1c61d6afe66fb4ef60eaea6ed0f",
          "message": "second",
          "timestamp": "2026-11-26T11:47:41+00:00",
          "tree_id": "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
          "url": "https://github.com/acme/widgets/commit/1475d1775f68f1c61d6afe66fb4ef60eaea6ed0f"
        },
        "date": 1795693662225,
        "tool": "pytest",
        "benches": [
          {
            "name": "test_bench.py::test_fib10",
            "value": 146328.04335648616,
            "unit": "iter/sec",
            "range": "stddev: 4.0004282603343976e-7",
            "extra": "mean: 0.000006833960032963659 sec\nrounds: 25"
          },
          {
            "name": "test_bench.py::test_sort",
            "value": 154699.14119317697,
            "unit": "iter/sec",
            "range": "stddev: 1.9979771904956576e-7",
            "extra": "mean: 0.00000646415999653982 sec\nrounds: 25"
          }
        ]
      }
    ]
  }
}