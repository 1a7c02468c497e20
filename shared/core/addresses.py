"""Whether an address stays on this machine: the one test every plaintext connection is held to."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit


def is_loopback(address: str) -> bool:
    """Whether ``address`` (host:port, [v6]:port or unix:path) stays on this machine."""
    if address.startswith(("unix:", "unix-abstract:")):
        return True
    host = address.rsplit(":", 1)[0] if address.count(":") == 1 or address.startswith("[") else address
    host = host.strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def url_on_this_machine(url: str) -> bool:
    """Whether the host ``url`` names is this machine."""
    host = urlsplit(url).hostname or ""
    return is_loopback(f"[{host}]:0" if ":" in host else f"{host}:0")


def plaintext_off_machine(url: str) -> bool:
    """Whether ``url`` is plain HTTP (or names no scheme) to a host that is not this machine."""
    return urlsplit(url).scheme != "https" and not url_on_this_machine(url)
