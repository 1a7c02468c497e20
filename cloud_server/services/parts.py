"""The cloud's services as one value: what ``build_cloud`` makes and the transport serves."""

from __future__ import annotations

from dataclasses import dataclass

from cloud_server.services.edge_registry import EdgeRegistry
from cloud_server.services.global_query import GlobalQueryService
from cloud_server.services.summary_index import SummaryIndex


@dataclass
class CloudParts:
    """The cloud's services, built once; tests and the simulation inject fakes for the models."""

    registry: EdgeRegistry
    index: SummaryIndex
    queries: GlobalQueryService
