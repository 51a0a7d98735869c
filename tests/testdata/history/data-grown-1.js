window.BENCHMARK_DATA = {
  "lastUpdate": 1791428405000,
  "repoUrl": "https://github.com/acme/widgets",
  "entries": {
    "cargo": [
      {
        "commit": {
          "author": {
            "email": "dev@example.com",
            "name": "dev",
            "username": "dev"
          },
          "committer": {
            "email": "noreply@github.com",
            "name": "GitHub",
            "username": "web-flow"
          },
          "distinct": true,
          "id": "00ab12cd34ef00ab12cd34ef00ab12cd34ef00ab",
          "message": "change 0",
          "timestamp": "2026-10-01T02:00:00+00:00",
          "tree_id": "64ab12cd34ef64ab12cd34ef64ab12cd34ef64ab",
          "url": "https://github.com/acme/widgets/commit/00ab12cd34ef00ab12cd34ef00ab12cd34ef00ab"
        },
        "date": 1790823600000,
        "tool": "cargo",
        "benches": [
          {
            "name": "parse",
            "value": 52000,
            "range": "± 812",
            "unit": "ns/iter"
          },
          {
            "name": "write",
            "value": 18000,
            "range": "± 240",
            "unit": "ns/iter"
          }
        ]
      },
      {
        "commit": {
          "author": {
            "email": "dev@example.com",
            "name": "dev",
            "username": "dev"
          },
          "committer": {
            "email": "noreply@github.com",
            "name": "GitHub",
            "username": "web-flow"
          },
          "distinct": true,
          "id": "01ab12cd34ef01ab12cd34ef01ab12cd34ef01ab",
          "message": "change 1",
          "timestamp": "2026-10-02T02:00:00+00:00",
          "tree_id": "65ab12cd34ef65ab12cd34ef65ab12cd34ef65ab",
          "url": "https://github.com/acme/widgets/commit/01ab12cd34ef01ab12cd34ef01ab12cd34ef01ab"
        },
        "date": 1790910000000,
        "tool": "cargo",
        "benches": [
          {
            "name": "parse",
            "value": 52156,
            "range": "± 812",
            "unit": "ns/iter"
          },
          {
            "name": "write",
            "value": 18054,
            "range": "± 240",
            "unit": "ns/iter"
          }
        ]
      },
      {
        "commit": {
          "author": {
            "email": "dev@example.com",
            "name": "dev",
            "username": "dev"
          },
          "committer": {
            "email": "noreply@github.com",
            "name": "GitHub",
            "username": "web-flow"
          },
          "distinct": true,
          "id": "02ab12cd34ef02ab12cd34ef02ab12cd34ef02ab",
          "message": "change 2",
          "timestamp": "2026-10-03T02:00:00+00:00",
          "tree_id": "66ab12cd34ef66ab12cd34ef66ab12cd34ef66ab",
          "url": "https://github.com/acme/widgets/commit/02ab12cd34ef02ab12cd34ef02ab12cd34ef02ab"
        },
        "date": 1790996400000,
        "tool": "cargo",
        "benches": [
          {
            "name": "parse",
            "value": 51896,
            "range": "± 812",
            "unit": "ns/iter"
          },
          {
            "name": "write",
            "value": 17964,
            "range": "± 240",
            "unit": "ns/iter"
          }
        ]
      },
      {
        "commit": {
          "author": {
            "email": "dev@example.com",
            "name": "dev",
            "username": "dev"
          },
          "committer": {
            "email": "noreply@github.com",
            "name": "GitHub",
            "username": "web-flow"
          },
          "distinct": true,
          "id": "03ab12cd34ef03ab12cd34ef03ab12cd34ef03ab",
          "message": "change 3",
          "timestamp": "2026-10-04T02:00:00+00:00",
          "tree_id": "67ab12cd34ef67ab12cd34ef67ab12cd34ef67ab",
          "url": "https://github.com/acme/widgets/commit/03ab12cd34ef03ab12cd34ef03ab12cd34ef03ab"
        },
        "date": 1791082800000,
        "tool": "cargo",
        "benches": [
          {
            "name": "parse",
            "value": 52052,
            "range": "± 812",
            "unit": "ns/iter"
          },
          {
            "name": "write",
            "value": 18018,
            "range": "± 240",
            "unit": "ns/iter"
          }
        ]
      },
      {
        "commit": {
          "author": {
            "email": "dev@example.com",
            "name": "dev",
            "username": "dev"
          },
          "committer": {
            "email": "noreply@github.com",
            "name": "GitHub",
            "username": "web-flow"
          },
          "distinct": true,
          "id": "04ab12cd34ef04ab12cd34ef04ab12cd34ef04ab",
          "message": "change 4",
          "timestamp": "2026-10-05T02:00:00+00:00",
          "tree_id": "68ab12cd34ef68ab12cd34ef68ab12cd34ef68ab",
          "url": "https://github.com/acme/widgets/commit/04ab12cd34ef04ab12cd34ef04ab12cd34ef04ab"
        },
        "date": 1791169200000,
        "tool": "cargo",
        "benches": [
          {
            "name": "parse",
            "value": 51948,
            "range": "± 812",
            "unit": "ns/iter"
          },
          {
            "name": "write",
            "value": 17982,
            "range": "± 240",
            "unit": "ns/iter"
          }
        ]
      },
      {
        "commit": {
          "author": {
            "email": "dev@example.com",
            "name": "dev",
            "username": "dev"
          },
          "committer": {
            "email": "noreply@github.com",
            "name": "GitHub",
            "username": "web-flow"
          },
          "distinct": true,
          "id": "05ab12cd34ef05ab12cd34ef05ab12cd34ef05ab",
          "message": "change 5",
          "timestamp": "2026-10-06T02:00:00+00:00",
          "tree_id": "69ab12cd34ef69ab12cd34ef69ab12cd34ef69ab",
          "url": "https://github.com/acme/widgets/commit/05ab12cd34ef05ab12cd34ef05ab12cd34ef05ab"
        },
        "date": 1791255600000,
        "tool": "cargo",
        "benches": [
          {
            "name": "parse",
            "value": 52104,
            "range": "± 812",
            "unit": "ns/iter"
          },
          {
            "name": "write",
            "value": 18036,
            "range": "± 240",
            "unit": "ns/iter"
          }
        ]
      },
      {
        "commit": {
          "author": {
            "email": "dev@example.com",
            "name": "dev",
            "username": "dev"
          },
          "committer": {
            "email": "noreply@github.com",
            "name": "GitHub",
            "username": "web-flow"
          },
          "distinct": true,
          "id": "06ab12cd34ef06ab12cd34ef06ab12cd34ef06ab",
          "message": "change 6",
          "timestamp": "2026-10-07T02:00:00+00:00",
          "tree_id": "6aab12cd34ef6aab12cd34ef6aab12cd34ef6aab",
          "url": "https://github.com/acme/widgets/commit/06ab12cd34ef06ab12cd34ef06ab12cd34ef06ab"
        },
        "date": 1791342000000,
        "tool": "cargo",
        "benches": [
          {
            "name": "parse",
            "value": 51844,
            "range": "± 812",
            "unit": "ns/iter"
          },
          {
            "name": "write",
            "value": 17946,
            "range": "± 240",
            "unit": "ns/iter"
          }
        ]
      },
      {
        "commit": {
          "author": {
            "email": "dev@example.com",
            "name": "dev",
            "username": "dev"
          },
          "committer": {
            "email": "noreply@github.com",
            "name": "GitHub",
            "username": "web-flow"
          },
          "distinct": true,
          "id": "07ab12cd34ef07ab12cd34ef07ab12cd34ef07ab",
          "message": "change 7",
          "timestamp": "2026-10-08T02:00:00+00:00",
          "tree_id": "6bab12cd34ef6bab12cd34ef6bab12cd34ef6bab",
          "url": "https://github.com/acme/widgets/commit/07ab12cd34ef07ab12cd34ef07ab12cd34ef07ab"
        },
        "date": 1791428400000,
        "tool": "cargo",
        "benches": [
          {
            "name": "parse",
            "value": 52000,
            "range": "± 812",
            "unit": "ns/iter"
          },
          {
            "name": "write",
            "value": 18000,
            "range": "± 240",
            "unit": "ns/iter"
          }
        ]
      }
    ],
    "custom": [
      {
        "commit": {
          "author": {
            "email": "dev@example.com",
            "name": "dev",
            "username": "dev"
          },
          "committer": {
            "email": "noreply@github.com",
            "name": "GitHub",
            "username": "web-flow"
          },
          "distinct": true,
          "id": "00ab12cd34ef00ab12cd34ef00ab12cd34ef00ab",
          "message": "change 0",
          "timestamp": "2026-10-01T02:00:00+00:00",
          "tree_id": "64ab12cd34ef64ab12cd34ef64ab12cd34ef64ab",
          "url": "https://github.com/acme/widgets/commit/00ab12cd34ef00ab12cd34ef00ab12cd34ef00ab"
        },
        "date": 1790823600000,
        "tool": "customSmallerIsBetter",
        "benches": [
          {
            "name": "latency",
            "value": 7500,
            "unit": "ns"
          },
          {
            "name": "size",
            "value": 900,
            "unit": "ns"
          }
        ]
      },
      {
        "commit": {
          "author": {
            "email": "dev@example.com",
            "name": "dev",
            "username": "dev"
          },
          "committer": {
            "email": "noreply@github.com",
            "name": "GitHub",
            "username": "web-flow"
          },
          "distinct": true,
          "id": "01ab12cd34ef01ab12cd34ef01ab12cd34ef01ab",
          "message": "change 1",
          "timestamp": "2026-10-02T02:00:00+00:00",
          "tree_id": "65ab12cd34ef65ab12cd34ef65ab12cd34ef65ab",
          "url": "https://github.com/acme/widgets/commit/01ab12cd34ef01ab12cd34ef01ab12cd34ef01ab"
        },
        "date": 1790910000000,
        "tool": "customSmallerIsBetter",
        "benches": [
          {
            "name": "latency",
            "value": 7522,
            "unit": "ns"
          },
          {
            "name": "size",
            "value": 903,
            "unit": "ns"
          }
        ]
      },
      {
        "commit": {
          "author": {
            "email": "dev@example.com",
            "name": "dev",
            "username": "dev"
          },
          "committer": {
            "email": "noreply@github.com",
            "name": "GitHub",
            "username": "web-flow"
          },
          "distinct": true,
          "id": "02ab12cd34ef02ab12cd34ef02ab12cd34ef02ab",
          "message": "change 2",
          "timestamp": "2026-10-03T02:00:00+00:00",
          "tree_id": "66ab12cd34ef66ab12cd34ef66ab12cd34ef66ab",
          "url": "https://github.com/acme/widgets/commit/02ab12cd34ef02ab12cd34ef02ab12cd34ef02ab"
        },
        "date": 1790996400000,
        "tool": "customSmallerIsBetter",
        "benches": [
          {
            "name": "latency",
            "value": 7485,
            "unit": "ns"
          },
          {
            "name": "size",
            "value": 898,
            "unit": "ns"
          }
        ]
      },
      {
        "commit": {
          "author": {
            "email": "dev@example.com",
            "name": "dev",
            "username": "dev"
          },
          "committer": {
            "email": "noreply@github.com",
            "name": "GitHub",
            "username": "web-flow"
          },
          "distinct": true,
          "id": "03ab12cd34ef03ab12cd34ef03ab12cd34ef03ab",
          "message": "change 3",
          "timestamp": "2026-10-04T02:00:00+00:00",
          "tree_id": "67ab12cd34ef67ab12cd34ef67ab12cd34ef67ab",
          "url": "https://github.com/acme/widgets/commit/03ab12cd34ef03ab12cd34ef03ab12cd34ef03ab"
        },
        "date": 1791082800000,
        "tool": "customSmallerIsBetter",
        "benches": [
          {
            "name": "latency",
            "value": 7507,
            "unit": "ns"
          },
          {
            "name": "size",
            "value": 901,
            "unit": "ns"
          }
        ]
      },
      {
        "commit": {
          "author": {
            "email": "dev@example.com",
            "name": "dev",
            "username": "dev"
          },
          "committer": {
            "email": "noreply@github.com",
            "name": "GitHub",
            "username": "web-flow"
          },
          "distinct": true,
          "id": "04ab12cd34ef04ab12cd34ef04ab12cd34ef04ab",
          "message": "change 4",
          "timestamp": "2026-10-05T02:00:00+00:00",
          "tree_id": "68ab12cd34ef68ab12cd34ef68ab12cd34ef68ab",
          "url": "https://github.com/acme/widgets/commit/04ab12cd34ef04ab12cd34ef04ab12cd34ef04ab"
        },
        "date": 1791169200000,
        "tool": "customSmallerIsBetter",
        "benches": [
          {
            "name": "latency",
            "value": 7493,
            "unit": "ns"
          },
          {
            "name": "size",
            "value": 899,
            "unit": "ns"
          }
        ]
      },
      {
        "commit": {
          "author": {
            "email": "dev@example.com",
            "name": "dev",
            "username": "dev"
          },
          "committer": {
            "email": "noreply@github.com",
            "name": "GitHub",
            "username": "web-flow"
          },
          "distinct": true,
          "id": "05ab12cd34ef05ab12cd34ef05ab12cd34ef05ab",
          "message": "change 5",
          "timestamp": "2026-10-06T02:00:00+00:00",
          "tree_id": "69ab12cd34ef69ab12cd34ef69ab12cd34ef69ab",
          "url": "https://github.com/acme/widgets/commit/05ab12cd34ef05ab12cd34ef05ab12cd34ef05ab"
        },
        "date": 1791255600000,
        "tool": "customSmallerIsBetter",
        "benches": [
          {
            "name": "latency",
            "value": 7515,
            "unit": "ns"
          },
          {
            "name": "size",
            "value": 902,
            "unit": "ns"
          }
        ]
      },
      {
        "commit": {
          "author": {
            "email": "dev@example.com",
            "name": "dev",
            "username": "dev"
          },
          "committer": {
            "email": "noreply@github.com",
            "name": "GitHub",
            "username": "web-flow"
          },
          "distinct": true,
          "id": "06ab12cd34ef06ab12cd34ef06ab12cd34ef06ab",
          "message": "change 6",
          "timestamp": "2026-10-07T02:00:00+00:00",
          "tree_id": "6aab12cd34ef6aab12cd34ef6aab12cd34ef6aab",
          "url": "https://github.com/acme/widgets/commit/06ab12cd34ef06ab12cd34ef06ab12cd34ef06ab"
        },
        "date": 1791342000000,
        "tool": "customSmallerIsBetter",
        "benches": [
          {
            "name": "latency",
            "value": 7.4775,
            "unit": "us"
          },
          {
            "name": "size",
            "value": 897,
            "unit": "ns"
          }
        ]
      },
      {
        "commit": {
          "author": {
            "email": "dev@example.com",
            "name": "dev",
            "username": "dev"
          },
          "committer": {
            "email": "noreply@github.com",
            "name": "GitHub",
            "username": "web-flow"
          },
          "distinct": true,
          "id": "07ab12cd34ef07ab12cd34ef07ab12cd34ef07ab",
          "message": "change 7",
          "timestamp": "2026-10-08T02:00:00+00:00",
          "tree_id": "6bab12cd34ef6bab12cd34ef6bab12cd34ef6bab",
          "url": "https://github.com/acme/widgets/commit/07ab12cd34ef07ab12cd34ef07ab12cd34ef07ab"
        },
        "date": 1791428400000,
        "tool": "customSmallerIsBetter",
        "benches": [
          {
            "name": "latency",
            "value": 7.5,
            "unit": "us"
          },
          {
            "name": "size",
            "value": 900,
            "unit": "ns"
          }
        ]
      }
    ]
  }
}