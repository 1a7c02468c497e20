"""cloud_server.transport."""
