"""TLS by default off this machine: plaintext with credentials to another address is refused, `dgrag certs`
makes the material in one command, and with mutual TLS the client certificate is the caller's identity."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import grpc
import pytest

from cloud_server.api import CloudClient
from shared.core.addresses import is_loopback
from shared.core.errors import ConfigError, DgragError
from shared.transport.certs import make_certs
from shared.transport.grpc_transport import ClientTls, open_channel
from shared.transport.secret_file import write_secret
from tests.support.grpc_harness import ACME, ADMIN_ID, connected, run, start_edge, start_network, token_of


@pytest.mark.parametrize(
    ("address", "local"),
    [
        ("127.0.0.1:1", True),
        ("localhost:1", True),
        ("[::1]:1", True),
        ("unix:/tmp/s", True),
        ("10.0.0.3:50051", False),
        ("cloud:50051", False),
        ("[2001:db8::1]:1", False),
    ],
)
def test_loopback_addresses_are_told_apart(address: str, local: bool) -> None:
    assert is_loopback(address) is local


def test_credentials_never_go_in_plaintext_to_another_machine_unless_said_in_so_many_words() -> None:
    async def main() -> None:
        with pytest.raises(ConfigError, match=r"refusing to send credentials in plaintext to 10\.0\.0\.3:50051"):
            open_channel("10.0.0.3:50051", 1 << 20)
        await open_channel("10.0.0.3:50051", 1 << 20, ClientTls(insecure=True)).close()
        await open_channel("10.0.0.3:50051", 1 << 20, carries_secrets=False).close()  # a health check carries none

    run(main())


def _outward_address() -> str:
    """An address of this machine that is not loopback (the test is skipped without one)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("10.255.255.255", 1))
            address = str(s.getsockname()[0])
        except OSError:
            address = ""
    if not address or address.startswith("127."):
        pytest.skip("this machine has no address but loopback")
    return address


def test_an_edge_refuses_a_plaintext_fake_cloud_and_never_sends_its_token(tmp_path: Path) -> None:
    seen: list[tuple[tuple[str, str], ...]] = []

    class Recorder(grpc.aio.ServerInterceptor):  # type: ignore[misc]
        async def intercept_service(self, continuation, details):  # type: ignore[no-untyped-def]
            seen.append(tuple(details.invocation_metadata))
            return await continuation(details)

    async def main() -> None:
        fake = grpc.aio.server(interceptors=[Recorder()])
        port = fake.add_insecure_port("0.0.0.0:0")
        await fake.start()
        address = f"{_outward_address()}:{port}"
        try:
            with pytest.raises(ConfigError, match="refusing to send credentials in plaintext"):
                CloudClient(address, ADMIN_ID, token_of(ADMIN_ID))
            certs = make_certs(tmp_path / "certs", ["127.0.0.1"], [])
            async with CloudClient(address, ADMIN_ID, token_of(ADMIN_ID), ClientTls(ca=str(certs.ca))) as client:
                with pytest.raises(DgragError, match="UNAVAILABLE"):
                    await asyncio.wait_for(client.list_edges(), 10)
            assert not any(token_of(ADMIN_ID) in str(m) for m in seen), "the token reached the fake cloud"
        finally:
            await fake.stop(0)

    run(main())


def test_with_mutual_tls_the_certificate_is_the_identity(tmp_path: Path) -> None:
    certs = make_certs(tmp_path / "certs", ["127.0.0.1", "localhost"], ["edge-a", ADMIN_ID])
    tls = {"tls_cert": str(certs.cloud_cert), "tls_key": str(certs.cloud_key), "tls_client_ca": str(certs.ca)}

    async def main() -> None:
        net = await start_network(tmp_path, {}, extra_edges=["edge-a"], **tls)
        edge_cert, edge_key = certs.clients["edge-a"]
        edge_tls = ClientTls(str(certs.ca), cert=str(edge_cert), key=str(edge_key))
        await start_edge(net, tmp_path, "edge-a", ACME, tls=edge_tls)
        address = f"127.0.0.1:{net.cloud_port}"
        admin_cert, admin_key = (str(p) for p in certs.clients[ADMIN_ID])
        try:
            await connected(net, "edge-a")  # the edge's session came in over mutual TLS
            as_admin = ClientTls(str(certs.ca), cert=admin_cert, key=admin_key)
            async with CloudClient(address, ADMIN_ID, token_of(ADMIN_ID), as_admin) as client:
                assert [e.edge_id for e in await client.list_edges()] == ["edge-a"]
            wrong_cert = ClientTls(str(certs.ca), cert=str(edge_cert), key=str(edge_key))
            async with CloudClient(address, ADMIN_ID, token_of(ADMIN_ID), wrong_cert) as client:
                with pytest.raises(DgragError, match=r"UNAUTHENTICATED.*names \['edge-a'\], not 'ops'"):
                    await client.list_edges()
            async with CloudClient(address, ADMIN_ID, token_of(ADMIN_ID), ClientTls(str(certs.ca))) as client:
                with pytest.raises(DgragError, match="UNAVAILABLE"):
                    await asyncio.wait_for(client.list_edges(), 10)
        finally:
            await net.close()

    run(main())


def test_certs_are_made_once_per_directory_with_private_keys_for_the_owner(tmp_path: Path) -> None:
    certs = make_certs(tmp_path / "c", ["cloud.example.org"], ["edge-1"])
    assert (certs.cloud_key.stat().st_mode & 0o777) == 0o600 and (
        (tmp_path / "c" / "ca.key").stat().st_mode & 0o077
    ) == 0
    with pytest.raises(ConfigError, match="already holds a CA"):
        make_certs(tmp_path / "c", ["x"], [])
    with pytest.raises(ConfigError, match="may hold only"):
        make_certs(tmp_path / "d", ["x"], ["../escape"])


def test_a_private_key_others_may_read_is_refused(tmp_path: Path) -> None:
    issued = make_certs(tmp_path / "tls", ["localhost"], ["edge-1"])
    cert, key = issued.clients["edge-1"]
    key.chmod(0o644)
    with pytest.raises(ConfigError, match="mode 0644: others may read it"):
        open_channel("localhost:1", 1 << 20, ClientTls(ca=str(issued.ca), cert=str(cert), key=str(key)))


def test_secrets_are_never_written_through_a_planted_symlink(tmp_path: Path) -> None:
    target = tmp_path / "victim"
    target.write_text("precious")
    (tmp_path / "token").symlink_to(target)
    write_secret(tmp_path / "token", "secret")
    assert target.read_text() == "precious", "the symlink's target is untouched"
    assert (tmp_path / "token").read_text() == "secret" and not (tmp_path / "token").is_symlink()


def test_a_failed_tls_connection_says_what_to_change(tmp_path: Path) -> None:
    from shared.cli.health_cli import check
    from shared.transport.connection_hints import hint

    certs = make_certs(tmp_path / "certs", ["localhost"], ["edge-a"])
    tls = {"tls_cert": str(certs.cloud_cert), "tls_key": str(certs.cloud_key), "tls_client_ca": str(certs.ca)}
    cert, key = (str(p) for p in certs.clients["edge-a"])

    async def main() -> None:
        net = await start_network(tmp_path, {}, **tls)
        by_name, by_number = f"localhost:{net.cloud_port}", f"127.0.0.1:{net.cloud_port}"
        try:
            assert await check(by_name, "", 5.0, ClientTls(str(certs.ca), cert=cert, key=key)) == "SERVING"
            refused = await check(by_name, "", 5.0, ClientTls(str(certs.ca)))
            assert refused.startswith("UNAVAILABLE") and "--tls-cert and --tls-key" in refused, refused
            misnamed = await check(by_number, "", 5.0, ClientTls(str(certs.ca), cert=cert, key=key))
            assert "--tls-server-name" in misnamed, misnamed
            named = ClientTls(str(certs.ca), server_name="localhost", cert=cert, key=key)
            assert await check(by_number, "", 5.0, named) == "SERVING"
            assert "--tls-ca" in await check(by_name, "", 5.0, ClientTls())
        finally:
            await net.close()

    run(main())
    assert "token" in hint("UNAUTHENTICATED", "unauthenticated: the token is not valid", ClientTls())
    assert hint("DEADLINE_EXCEEDED", "Deadline Exceeded", ClientTls()) == ""


def test_calls_a_certificate_refuses_do_not_spend_the_named_callers_budget(tmp_path: Path) -> None:
    certs = make_certs(tmp_path / "certs", ["127.0.0.1", "localhost"], ["edge-a", ADMIN_ID])
    tls = {"tls_cert": str(certs.cloud_cert), "tls_key": str(certs.cloud_key), "tls_client_ca": str(certs.ca)}

    async def main() -> None:
        net = await start_network(tmp_path, {}, extra_edges=["edge-a"], calls_per_minute=6.0, call_burst=2, **tls)
        address = f"127.0.0.1:{net.cloud_port}"
        edge_cert, edge_key = (str(p) for p in certs.clients["edge-a"])
        admin_cert, admin_key = (str(p) for p in certs.clients[ADMIN_ID])
        try:
            stolen = ClientTls(str(certs.ca), cert=edge_cert, key=edge_key)  # the operator's token, another's cert
            async with CloudClient(address, ADMIN_ID, token_of(ADMIN_ID), stolen) as client:
                for _ in range(4):
                    with pytest.raises(DgragError, match="UNAUTHENTICATED"):
                        await client.list_edges()
            own = ClientTls(str(certs.ca), cert=admin_cert, key=admin_key)
            async with CloudClient(address, ADMIN_ID, token_of(ADMIN_ID), own) as client:
                assert await client.list_edges() == [], "the refused calls spent none of the operator's budget"
        finally:
            await net.close()

    run(main())
