"""Transport layer: endpoint configuration, HTTP and agentic endpoints, the call event."""
