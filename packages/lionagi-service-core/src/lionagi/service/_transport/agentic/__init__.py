"""Agentic transport: the ADR-0030 boundary every CLI, in-process and remote adapter shares.

One job per module: ``records`` (capabilities and the typed shapes at the boundary),
``endpoint`` (``AgenticEndpoint``: strict requests, runtime handlers, sessions, settings),
``subprocess_cli`` (``SubprocessCliEndpoint``: the run loop every JSON-events CLI adapter shares),
``output`` (the normalized output contract and the one-shot fold), ``settings`` (deployment
settings), ``handlers`` (runtime callback validation). Process mechanics live in
``_transport.subprocess``.
"""
