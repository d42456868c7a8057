"""The local balancer's configuration, generated from deploy/haproxy.cfg so both run the same settings.

Only what cannot be the same on one machine is replaced: the frontend's bind address (a loopback port
instead of every interface's 8080), the stats socket's path (the cluster's own directory), Docker's
DNS resolvers (absent outside compose) and the backend's server lines (one per local replica, each
with the options of the file's first server line and its own cookie value). Everything else —
timeouts, stickiness, health checks, forwarding — is the file's, line for line.
"""

from __future__ import annotations

import re
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "deploy" / "haproxy.cfg"
HAPROXY = Path("/usr/sbin/haproxy")
SECTIONS = ("global", "defaults", "frontend", "backend", "listen", "resolvers", "peers", "userlist",
            "mailers", "program", "http-errors", "ring", "cache")


class ConfigError(Exception):
    """deploy/haproxy.cfg does not have the shape the generator relies on."""


@dataclass(frozen=True)
class Server:
    """One replica as the balancer sees it: its name (also its cookie value) and loopback port."""

    name: str
    port: int


def _section(line: str) -> str | None:
    """The section a header line opens ("backend"), or None for a line inside a section."""
    if not line or line[0].isspace() or line.startswith("#"):
        return None
    word = line.split(maxsplit=1)[0]
    return word if word in SECTIONS else None


def cookie_name(text: str) -> str:
    """The stickiness cookie's name (`cookie NAME insert ...` in a backend)."""
    found = re.findall(r"^\s+cookie\s+(\S+)\s+insert\b", text, flags=re.MULTILINE)
    if len(found) != 1:
        raise ConfigError(f"expected one `cookie NAME insert` line, found {len(found)}")
    return found[0]


def _without(tokens: list[str], keyword: str) -> list[str]:
    """`tokens` without `keyword` and the value after it."""
    out, skip = [], False
    for tok in tokens:
        if skip:
            skip = False
        elif tok == keyword:
            skip = True
        else:
            out.append(tok)
    return out


def _server_line(template: list[str], indent: str, server: Server) -> str:
    """A server line for `server` with the template's options (`server NAME ADDR options...`),
    its cookie value its own name, and no DNS resolvers (the address is a loopback IP)."""
    options = _without(_without(template[3:], "cookie"), "resolvers")
    return indent + " ".join(["server", server.name, f"127.0.0.1:{server.port}", *options,
                              "cookie", server.name])


def runtime_cfg(text: str, bind_port: int, servers: list[Server], socket_path: Path) -> str:
    """The local balancer's configuration: `text` (deploy/haproxy.cfg) with the replacements above."""
    if not servers:
        raise ConfigError("no servers to balance")
    out: list[str] = []
    section, binds, backends_with_servers, emitted = "", 0, 0, False
    for line in text.splitlines():
        header = _section(line)
        if header is not None:
            section, emitted = header, False
            if section == "listen":
                raise ConfigError("a `listen` section would open a port the generator does not control")
        if section == "resolvers":
            continue  # Docker's embedded DNS: there is none outside compose
        tokens = line.split()
        indent = line[: len(line) - len(line.lstrip())]
        if not tokens or tokens[0].startswith("#"):
            out.append(line)
        elif section == "global" and tokens[:2] == ["stats", "socket"]:
            out.append(indent + shlex.join(["stats", "socket", str(socket_path), *tokens[3:]]))
        elif section == "frontend" and tokens[0] == "bind":
            binds += 1
            out.append(f"{indent}bind 127.0.0.1:{bind_port}")
        elif section == "backend" and tokens[0] == "server":
            if emitted:
                continue  # the generated lines stand in for every server line of the backend
            backends_with_servers, emitted = backends_with_servers + 1, True
            out.extend(_server_line(tokens, indent, s) for s in servers)
        elif section == "backend" and tokens[0] == "default-server":
            out.append(indent + " ".join(_without(tokens, "resolvers")))
        else:
            out.append(line)
    if binds != 1 or backends_with_servers != 1:
        raise ConfigError(f"expected one frontend bind line and one backend with servers, found {binds} "
                          f"and {backends_with_servers}")
    return "\n".join(out) + "\n"


def check(path: Path, haproxy: Path = HAPROXY) -> str:
    """`haproxy -c -f path`: its output; raises ConfigError when HAProxy rejects the file."""
    done = subprocess.run([str(haproxy), "-c", "-f", str(path)], capture_output=True, text=True,
                          timeout=30, check=False)
    output = done.stdout + done.stderr
    if done.returncode != 0:
        raise ConfigError(f"haproxy -c rejected {path}:\n{output}")
    return output
