"""docker-compose.yml and the Dockerfile, checked by reading them (no Docker engine here)."""

from __future__ import annotations

import json
import shlex
import tomllib
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return data


def _words(command: str | list[str]) -> list[str]:
    """A compose command, whether written as a string or a list."""
    return shlex.split(command) if isinstance(command, str) else [str(w) for w in command]


def _environment(service: dict[str, Any]) -> dict[str, str]:
    """A service's environment, whether written as a map or as KEY=VALUE lines."""
    env = service.get("environment", {})
    if isinstance(env, list):
        return dict(line.split("=", 1) for line in env)
    return {str(k): str(v) for k, v in env.items()}


def _dockerfile() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of each Dockerfile line, continuations joined."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    lines = [line.strip() for line in text.splitlines()]
    return [
        (line.split(None, 1)[0].upper(), line.split(None, 1)[1])
        for line in lines
        if line and not line.startswith("#")
    ]


def _profile(compose: dict[str, Any], profile: str | None) -> dict[str, dict[str, Any]]:
    """The services `docker compose [--profile P] up` starts beyond the default ones."""
    return {
        name: service
        for name, service in compose["services"].items()
        if (profile in service["profiles"] if "profiles" in service else profile is None)
    }


def test_services(compose: dict[str, Any]) -> None:
    """Compose runs a Redis and the server, and nothing else, unless a profile is named."""
    assert set(_profile(compose, None)) == {"redis", "server"}
    assert compose["services"]["redis"]["image"].startswith("redis:7")
    assert set(compose["services"]) == {*_profile(compose, None), *_profile(compose, "cluster")}


def test_cluster_profile(compose: dict[str, Any]) -> None:
    """`--profile cluster`: three cluster-enabled Redis 7 (AOF on, each on its own volume),
    a one-shot job that joins them once they answer, and two nodes on the cluster."""
    cluster = _profile(compose, "cluster")
    redises = sorted(name for name in cluster if name.startswith("redis-"))
    assert len(redises) == 3
    for name in redises:
        service = cluster[name]
        assert service["image"].startswith("redis:7")
        words = _words(service["command"])
        options = dict(zip(words[1::2], words[2::2], strict=True))
        assert words[0] == "redis-server" and options["--cluster-enabled"] == "yes"
        assert (options["--appendonly"], options["--appendfsync"]) == ("yes", "everysec")
        assert _words(service["healthcheck"]["test"])[-2:] == ["redis-cli", "ping"]
    volumes = [str(cluster[name]["volumes"][0]).split(":") for name in redises]
    assert sorted(v[1] for v in volumes) == ["/data"] * 3
    assert len({v[0] for v in volumes}) == 3 and {v[0] for v in volumes} <= set(compose["volumes"])

    init = cluster["cluster-init"]
    script = " ".join(_words(init["command"]))
    assert "redis-cli --cluster create" in script and "cluster_state:ok" in script
    for name in redises:
        assert f"getent hosts {name}" in script
        assert init["depends_on"][name]["condition"] == "service_healthy"

    servers = sorted(name for name in cluster if name.startswith("server-"))
    assert len(servers) == 2
    ports = set()
    for name in servers:
        service = cluster[name]
        url = urlsplit(_environment(service)["REDIS_URL"])
        assert (url.scheme, url.port) == ("redis+cluster", 6379) and url.hostname in redises
        assert service["depends_on"]["cluster-init"]["condition"] == (
            "service_completed_successfully"
        )
        assert service["build"] == compose["services"]["server"]["build"]
        ports |= {str(p).split(":")[0] for p in service["ports"]}
    assert len(ports) == 2 and "8765" not in ports  # beside the default server, not on it


def test_redis_keeps_an_append_only_file_on_a_volume(compose: dict[str, Any]) -> None:
    """Redis runs with AOF on (fsync every second) in /data, a named volume."""
    redis = compose["services"]["redis"]
    words = _words(redis["command"])
    assert words[0] == "redis-server"
    options = dict(zip(words[1::2], words[2::2], strict=True))
    assert options["--appendonly"] == "yes"
    assert options["--appendfsync"] == "everysec"
    mounts = [str(v).split(":") for v in redis["volumes"]]
    assert [m[1] for m in mounts] == ["/data"]
    assert mounts[0][0] in compose["volumes"]  # named, so it outlives the container


def test_redis_has_a_healthcheck(compose: dict[str, Any]) -> None:
    """The health check pings Redis, so the server starts only once Redis answers."""
    check = compose["services"]["redis"]["healthcheck"]
    assert _words(check["test"])[-2:] == ["redis-cli", "ping"]
    server = compose["services"]["server"]
    assert server["depends_on"]["redis"]["condition"] == "service_healthy"


def test_server_uses_the_redis_service(compose: dict[str, Any]) -> None:
    """The server's REDIS_URL names the redis service; its port is published."""
    server = compose["services"]["server"]
    url = urlsplit(_environment(server)["REDIS_URL"])
    assert (url.scheme, url.hostname, url.port) == ("redis", "redis", 6379)
    assert url.hostname in compose["services"]
    assert [str(p) for p in server["ports"]] == ["8765:8765"]
    build = server["build"]
    context = build if isinstance(build, str) else build.get("context", ".")
    dockerfile = "Dockerfile" if isinstance(build, str) else build.get("dockerfile", "Dockerfile")
    assert (ROOT / context / dockerfile).resolve() == ROOT / "Dockerfile"


def test_dockerfile_installs_and_serves() -> None:
    """The image is python:3.11-slim with the project installed, running `ballroom serve`
    on all interfaces at the port compose publishes."""
    instructions = _dockerfile()
    assert instructions[0] == ("FROM", "python:3.11-slim")
    runs = " ".join(args for op, args in instructions if op == "RUN")
    assert "pip install ." in runs
    (cmd,) = [json.loads(args) for op, args in instructions if op == "CMD"]
    assert cmd == ["ballroom", "serve", "--host", "0.0.0.0", "--port", "8765"]
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["ballroom"] == "protocol.cli:main"
    copied = " ".join(args for op, args in instructions if op == "COPY")
    for needed in ("pyproject.toml", "README.md", "protocol", "server", "client"):
        assert needed in copied


def test_dockerignore_keeps_local_state_out() -> None:
    """The build context leaves out the venv, git and local Redis data."""
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {".git", ".venv", "var"} <= set(ignored)
