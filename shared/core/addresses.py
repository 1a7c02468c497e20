"""Whether an address stays on this machine: the one test every plaintext connection is held to."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit


def is_loopback(address: str) -> bool:
    """Whether ``address`` (host:port, [v6]:port or unix:path) stays on this machine."""
    if address.startswith(("unix:", "unix-abstract:")):
        return True
    host = host_of(address).strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def host_of(address: str) -> str:
    """The host of ``address`` without its port: host:port, [v6]:port, or a bare host or v6 address as it is."""
    return address.rsplit(":", 1)[0] if address.count(":") == 1 or address.startswith("[") else address


def host_is_loopback(host: str) -> bool:
    """Whether a bare host (a name, an IPv4 or IPv6 address, bracketed or not) is this machine."""
    host = host.strip("[]")
    return is_loopback(f"[{host}]:0" if ":" in host else f"{host}:0")


def url_on_this_machine(url: str) -> bool:
    """Whether the host ``url`` names is this machine."""
    return host_is_loopback(urlsplit(url).hostname or "")


def plaintext_off_machine(url: str) -> bool:
    """Whether ``url`` is plain HTTP (or names no scheme) to a host that is not this machine."""
    return urlsplit(url).scheme != "https" and not url_on_this_machine(url)


IPV6_BLOCK = 64
"""Prefix length of the IPv6 block counted as one address: a host is given a whole /64 and can pick any of it."""


def address_block(host: str) -> str:
    """The block a failed login is counted against: an IPv4 address as it is, an IPv6 address's /64, anything
    else (a unix socket, a name) as it is. Accepts ``ipv4:``/``ipv6:`` prefixes and ``[...]`` brackets."""
    kind, _, rest = host.partition(":") if host.startswith(("ipv4:", "ipv6:")) else ("", "", host)
    bare = rest.strip("[]") if kind else host.strip("[]")
    try:
        address = ipaddress.ip_address(bare)
    except ValueError:
        return host
    if address.version == 6 and not address.is_loopback:
        network = ipaddress.ip_network(f"{address}/{IPV6_BLOCK}", strict=False)
        return f"ipv6:{network}"
    return f"ipv{address.version}:{address}"
