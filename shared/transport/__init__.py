"""How the processes talk: gRPC channels, credentials, statuses and call limits, the wire format (serde), TLS
material, secret files, metrics and traces, server lifecycles."""
