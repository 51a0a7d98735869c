# The root action's image (action.yml: runs.using docker, image Dockerfile). GitHub rebuilds it
# on every job, so the dependency layer comes before the source and is cached by the builder.
# Build elsewhere (no registry): --build-arg BASE=localhost/debian-base:bookworm (see
# scripts/container-test.sh). Behind a TLS-intercepting proxy, mount the CA bundle and a pip
# config for the build only (docs/github-actions.md "Running the image locally or behind a proxy").
ARG BASE=debian:bookworm-slim
FROM ${BASE}

ENV DEBIAN_FRONTEND=noninteractive \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    MPLBACKEND=Agg \
    PATH=/opt/ordertrap/bin:${PATH}

SHELL ["/bin/bash", "-o", "pipefail", "-c"]

# Debian's python3 (3.11 in bookworm); versions follow the base image's snapshot.
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 python3-venv ca-certificates \
 && rm -rf /var/lib/apt/lists/*

# Dependencies only (from pyproject.toml), so a source change does not reinstall numpy & co.
COPY pyproject.toml /src/pyproject.toml
# hadolint ignore=DL3013
RUN python3 -m venv /opt/ordertrap \
 && python3 -c 'import tomllib; print("\n".join(tomllib.load(open("/src/pyproject.toml", "rb"))["project"]["dependencies"]))' \
    > /tmp/requirements.txt \
 && pip install -r /tmp/requirements.txt "setuptools>=77" wheel \
 && rm /tmp/requirements.txt

COPY README.md /src/README.md
COPY gate /src/gate
RUN pip install --no-deps --no-build-isolation /src \
 && rm -rf /src/build \
 && ordertrap-gate --version

# GitHub runs Docker actions as root with the workspace as working directory (docs.github.com,
# "Dockerfile support for GitHub Actions": USER must not be set). That directory holds the
# repository's (or a PR's) files, and `python -m` puts the working directory first on sys.path:
# -I (isolated mode) leaves it out, so a top-level gate/ there is never imported in place of
# the installed gate. -I also ignores PYTHON* variables, hence -u and -B for the two set above.
# The image is the CLI `ordertrap-gate`; CMD makes `action` its default subcommand. action.yml
# sets no `runs.args`, so GitHub runs the action (`args` would replace CMD: docs.github.com,
# "Metadata syntax for GitHub Actions", runs.args); `docker run IMAGE analyze ...` runs a verb.
WORKDIR /github/workspace
ENTRYPOINT ["/opt/ordertrap/bin/python", "-I", "-u", "-B", "-m", "gate"]
CMD ["action"]
