"""The edge API off loopback in plaintext is refused with the settings that allow it, as the owner's page is."""

from __future__ import annotations

import pytest

from edge_node.transport.server import check_api_listener
from shared.config import EdgeServerConfig
from shared.core.errors import ConfigError


def test_loopback_tls_or_a_stated_insecure_network_start() -> None:
    check_api_listener(EdgeServerConfig())
    check_api_listener(EdgeServerConfig(host="::1"))
    check_api_listener(EdgeServerConfig(host="0.0.0.0", tls_cert="c.pem", tls_key="k.pem"))
    check_api_listener(EdgeServerConfig(host="10.0.0.5", insecure=True))


@pytest.mark.parametrize("host", ["0.0.0.0", "10.0.0.5", "edge.example.org", "::"])
def test_plaintext_off_loopback_is_refused_naming_what_allows_it(host: str) -> None:
    with pytest.raises(ConfigError, match=r"server\.tls_cert and server\.tls_key.*server\.insecure = true"):
        check_api_listener(EdgeServerConfig(host=host))
    with pytest.raises(ConfigError):
        check_api_listener(EdgeServerConfig(host=host, tls_cert="c.pem"))  # a certificate without its key
