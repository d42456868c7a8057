"""The reader's real address behind the balancer, for the limits kept per client address.

A connection's peer is the balancer when there is one (HAProxy in deploy/compose.yaml and
tools.cluster, the ingress controller in deploy/k8s/), and the balancer writes the address it saw in
X-Forwarded-For. That header is whatever the sender wrote, so it is read only when the direct peer
is a trusted balancer (`ASE_TRUSTED_PROXIES`: addresses or CIDRs, comma-separated; none by default),
and then from the right: the rightmost address that is not itself a trusted balancer is the one the
balancer saw (entries further left were written by the reader and can be anything). From any other
peer, the peer's own address counts and the header is ignored.

Pages pass Streamlit's context in (`from_context(st.context)`): `st.context.ip_address` is the
websocket's peer (None for loopback, which `from_context` reads as 127.0.0.1) and `st.context.headers`
the handshake's headers, every X-Forwarded-For line of which (`get_all`) is read. uvicorn, under
Streamlit, itself replaces the peer by X-Forwarded-For for loopback peers only (its
FORWARDED_ALLOW_IPS default), which gives the same answer for a balancer on loopback. Nothing here
imports Streamlit.
"""

from __future__ import annotations

import functools
import ipaddress
import logging
import os
from collections.abc import Iterable
from typing import Any

TRUSTED_ENV = "ASE_TRUSTED_PROXIES"
LOG = logging.getLogger("server.client_address")
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def trusted_networks(text: str | None = None) -> tuple[Network, ...]:
    """The balancers' networks from `text` (default: $ASE_TRUSTED_PROXIES); an entry that is not an
    address or CIDR is logged (once) and left out (trusting less, never more)."""
    return _parse(os.environ.get(TRUSTED_ENV, "") if text is None else text)


@functools.lru_cache(maxsize=8)
def _parse(raw: str) -> tuple[Network, ...]:
    out: list[Network] = []
    for item in raw.replace(" ", ",").split(","):
        if not item:
            continue
        try:
            out.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            LOG.error("%s: %r is not an address or network: not trusted", TRUSTED_ENV, item)
    return tuple(out)


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    text = text.strip()
    if text.startswith("[") and "]" in text:  # [v6]:port
        text = text[1:text.index("]")]
    elif text.count(":") == 1:  # v4:port
        text = text.split(":", 1)[0]
    try:
        addr = ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return None
    return addr.ipv4_mapped or addr if isinstance(addr, ipaddress.IPv6Address) else addr


def _trusted(addr: Any, networks: Iterable[Network]) -> bool:
    return any(addr.version == n.version and addr in n for n in networks)


def client_address(peer: str, forwarded_for: Iterable[str] = (),
                   trusted: Iterable[Network] | None = None) -> str:
    """The reader's address: `peer` itself unless it is a trusted balancer; then the rightmost
    address of the X-Forwarded-For lines `forwarded_for` (in the order received) that is not a
    trusted balancer (the leftmost when all are; `peer` when none parses)."""
    networks = tuple(trusted_networks() if trusted is None else trusted)
    addr = _address(peer)
    if addr is None or not _trusted(addr, networks):
        return str(addr) if addr is not None else peer
    hops = [a for line in forwarded_for for a in (_address(x) for x in line.split(",")) if a is not None]
    for hop in reversed(hops):
        if not _trusted(hop, networks):
            return str(hop)
    return str(hops[0]) if hops else str(addr)


def from_context(context: Any, trusted: Iterable[Network] | None = None) -> str:
    """`client_address` for a Streamlit page: pass `st.context` (its `ip_address` and `headers`)."""
    peer = getattr(context, "ip_address", None) or "127.0.0.1"  # None: a loopback peer (or none)
    headers = getattr(context, "headers", None)
    lines = list(headers.get_all("X-Forwarded-For")) if headers is not None else []
    return client_address(peer, lines, trusted)
