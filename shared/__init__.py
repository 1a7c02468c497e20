"""Code shared by the edge node and the cloud server, by kind: ``core`` (the domain: records, vocabulary,
errors, reading questions and text), ``transport`` (gRPC, the wire format, TLS, metrics, traces), ``models``
(the model runtimes), ``config`` (the typed configuration) and ``cli`` (what the commands share)."""
