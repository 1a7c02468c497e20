"""Trust round 3, finding 10: failed logins count against an address block (an IPv6 host's whole /64), and the
buckets that count them stay bounded whatever keys a caller makes up."""

from __future__ import annotations

import pytest

from shared.core.addresses import address_block, is_loopback, plaintext_off_machine, url_on_this_machine
from shared.transport.call_limits import CallBuckets


@pytest.mark.parametrize(
    ("host", "block"),
    [
        ("ipv4:10.0.0.3", "ipv4:10.0.0.3"),
        ("10.0.0.3", "ipv4:10.0.0.3"),
        ("ipv6:[2001:db8:1:2:aaaa::1]", "ipv6:2001:db8:1:2::/64"),
        ("2001:db8:1:2:ffff:ffff:ffff:ffff", "ipv6:2001:db8:1:2::/64"),
        ("ipv6:[::1]", "ipv6:::1"),
        ("unix:/run/dgrag.sock", "unix:/run/dgrag.sock"),
    ],
)
def test_an_address_is_counted_by_its_block(host: str, block: str) -> None:
    assert address_block(host) == block


def test_rotating_ipv6_addresses_within_a_64_share_one_bucket() -> None:
    buckets = CallBuckets(per_minute=1, burst=3, clock=lambda: 0.0)
    waits = [buckets.take(address_block(f"ipv6:[2001:db8:1:2::{i:x}]")) for i in range(1, 6)]
    assert waits[:3] == [0.0, 0.0, 0.0] and all(w > 0 for w in waits[3:]), "the fourth guess waits"


def test_the_buckets_forget_refilled_keys_first_and_stay_bounded() -> None:
    now = [0.0]
    buckets = CallBuckets(per_minute=60, burst=2, clock=lambda: now[0], max_keys=100)
    buckets.take("attacker", 2)
    assert buckets.waiting("attacker") > 0
    for i in range(1000):  # made-up keys, one failure each
        buckets.take(f"ipv4:10.9.{i // 256}.{i % 256}")
        now[0] += 0.001
    assert len(buckets) <= 100
    buckets.take("late", 1)
    assert len(buckets) <= 100


@pytest.mark.parametrize(
    ("url", "here", "plaintext_off"),
    [
        ("http://127.0.0.1:8080/v1", True, False),
        ("http://localhost:8080/v1", True, False),
        ("http://[::1]:8080/v1", True, False),
        ("http://10.0.0.5:8080/v1", False, True),
        ("https://api.example.org/v1", False, False),
        ("api.example.org:8080", False, True),
    ],
)
def test_urls_off_this_machine_in_plaintext_are_recognised(url: str, here: bool, plaintext_off: bool) -> None:
    assert url_on_this_machine(url) is here
    assert plaintext_off_machine(url) is plaintext_off


def test_loopback_addresses() -> None:
    assert is_loopback("127.0.0.1:5") and is_loopback("[::1]:5") and is_loopback("unix:/x")
    assert not is_loopback("10.0.0.1:5")
