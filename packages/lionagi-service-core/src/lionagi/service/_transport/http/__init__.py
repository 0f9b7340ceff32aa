"""HTTP mechanics behind :class:`~lionagi.service._transport.http.endpoint.Endpoint`.

One job per module: ``ssrf`` (destination guard), ``auth`` (headers), ``payload`` (request
defaults and schema), ``status`` (status to typed error), ``framing`` (SSE / NDJSON bytes to
JSON events), ``projection`` (vendor events to ``StreamChunk``), ``client`` (the httpx seam).
"""
