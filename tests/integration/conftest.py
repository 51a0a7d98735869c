"""The publish tests' shared set-up (tests/integration/publish_fixtures.py): the fixtures ``fake``
(the fake GitHub server) and ``job`` (a GitHub-shaped job around it with `publish`'s client made
fast), for every module that does not define its own of that name."""

from tests.integration.publish_fixtures import fake, job  # noqa: F401
