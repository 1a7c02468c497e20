"""No caller talks its way past the limits: health watches per address and in all, calls per credential."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from shared.proto.dgrag.v1 import cloud_pb2, cloud_pb2_grpc
from shared.transport.call_limits import RETRY_PUSHBACK, CallBuckets, peer_host
from shared.transport.grpc_transport import auth_metadata
from tests.support.grpc_harness import ACME, ADMIN_ID, APP_ID, connected, run, start_network, token_of


def test_a_bucket_lets_a_burst_through_then_paces_and_refills() -> None:
    now = [0.0]
    buckets = CallBuckets(per_minute=60, burst=2, clock=lambda: now[0])
    assert buckets.take("a") == buckets.take("a") == 0.0
    assert buckets.take("a") == 1.0, "the third call waits one second"
    assert buckets.take("b") == 0.0, "each credential has its own bucket"
    now[0] = 1.0
    assert buckets.take("a") == 0.0
    assert CallBuckets(0, 1).take("a") == 0.0, "0 calls a minute: no limit"
    assert "retry in 1.0 s" in buckets.refusal_message("a", 0.95)


def test_peer_addresses_lose_their_ports() -> None:
    assert peer_host("ipv4:10.0.0.3:51234") == "ipv4:10.0.0.3"
    assert peer_host("ipv6:[::1]:51234") == "ipv6:[::1]"
    assert peer_host("unix:/tmp/s") == "unix:/tmp/s"


def test_a_credential_past_its_calls_a_minute_is_told_when_to_retry(tmp_path: Path) -> None:
    async def main() -> None:
        net = await start_network(tmp_path, {"edge-a": ACME}, calls_per_minute=6.0, call_burst=2)
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{net.cloud_port}") as channel:
                stub = cloud_pb2_grpc.CloudStub(channel)
                app = auth_metadata(APP_ID, token_of(APP_ID))
                ask = cloud_pb2.MatchSummariesRequest(question="Who leads Acme Robotics?", top_m=2)
                for _ in range(2):
                    await stub.MatchSummaries(ask, metadata=app)
                call = stub.MatchSummaries(ask, metadata=app)
                try:
                    await call
                    raise AssertionError("a third call in the same second was let through")
                except grpc.aio.AioRpcError as exc:
                    assert exc.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                    assert "retry in" in (exc.details() or "")
                    pushback = dict(exc.trailing_metadata() or ()).get(RETRY_PUSHBACK)
                    assert pushback is not None and 5000 <= int(pushback) <= 10000
                admin = auth_metadata(ADMIN_ID, token_of(ADMIN_ID))
                assert (await stub.ListEdges(cloud_pb2.ListEdgesRequest(), metadata=admin)).edges
        finally:
            await net.close()

    run(main())


def test_health_watches_are_capped_per_address_and_leave_the_authenticated_calls_their_places(tmp_path: Path) -> None:
    async def main() -> None:
        limits = {"health_watches": 8, "health_watches_per_peer": 3, "max_concurrent_rpcs": 12}
        net = await start_network(tmp_path, {"edge-a": ACME}, **limits)
        try:
            await connected(net, "edge-a")
            async with grpc.aio.insecure_channel(f"127.0.0.1:{net.cloud_port}") as channel:
                health = health_pb2_grpc.HealthStub(channel)
                watches = [health.Watch(health_pb2.HealthCheckRequest(service="")) for _ in range(6)]
                codes = []
                for w in watches:
                    try:
                        await w.read()
                        codes.append("OK")
                    except grpc.aio.AioRpcError as exc:
                        codes.append(exc.code().name)
                assert codes.count("OK") == 3 and codes.count("RESOURCE_EXHAUSTED") == 3
                unknown = health.Watch(health_pb2.HealthCheckRequest(service="x" * 100))
                try:
                    await unknown.read()
                    raise AssertionError("a watch of a service that is not here was kept open")
                except grpc.aio.AioRpcError as exc:
                    assert exc.code() == grpc.StatusCode.NOT_FOUND
                reply = await cloud_pb2_grpc.CloudStub(channel).MatchSummaries(
                    cloud_pb2.MatchSummariesRequest(question="Who leads Acme Robotics?", top_m=2),
                    metadata=auth_metadata(APP_ID, token_of(APP_ID)),
                )
                assert reply.summaries
                for w in watches:
                    w.cancel()
        finally:
            await net.close()

    run(main())


def test_an_address_past_its_failed_authentications_is_refused_even_with_a_good_token(tmp_path: Path) -> None:
    async def main() -> None:
        net = await start_network(tmp_path, {"edge-a": ACME}, failed_auth_per_minute=6.0)
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{net.cloud_port}") as channel:
                stub = cloud_pb2_grpc.CloudStub(channel)
                request = cloud_pb2.ListEdgesRequest()
                codes = []
                for i in range(12):  # guessing the operator's token
                    guess = auth_metadata(ADMIN_ID, f"guess-{i:02d}-of-twenty-characters")
                    try:
                        await stub.ListEdges(request, metadata=guess)
                    except grpc.aio.AioRpcError as exc:
                        codes.append(exc.code())
                assert codes[:10] == [grpc.StatusCode.UNAUTHENTICATED] * 10, "the burst of failures is judged"
                assert codes[10:] == [grpc.StatusCode.RESOURCE_EXHAUSTED] * 2
                with pytest.raises(grpc.aio.AioRpcError) as err:  # the right token is not judged either now
                    await stub.ListEdges(request, metadata=auth_metadata(ADMIN_ID, token_of(ADMIN_ID)))
                assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                assert "failed_auth_per_minute" in (err.value.details() or "")
                assert dict(err.value.trailing_metadata() or ())[RETRY_PUSHBACK]
        finally:
            await net.close()

    run(main())


def test_the_cloud_logs_a_refused_caller_once_a_minute(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    async def main() -> None:
        net = await start_network(tmp_path, {"edge-a": ACME})
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{net.cloud_port}") as channel:
                stub = cloud_pb2_grpc.CloudStub(channel)
                for _ in range(3):
                    with pytest.raises(grpc.aio.AioRpcError):
                        await stub.ListEdges(cloud_pb2.ListEdgesRequest(), metadata=auth_metadata("edge-a", "x" * 24))
        finally:
            await net.close()

    with caplog.at_level("WARNING", logger="dgrag.cloud"):
        run(main())
    refused = [r.getMessage() for r in caplog.records if "refused a call" in r.getMessage()]
    assert refused == [
        "refused a call from 'edge-a': a known id with a wrong token (the caller's token settings or this tokens file)"
    ]
