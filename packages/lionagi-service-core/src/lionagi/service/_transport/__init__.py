"""Transport layer, in rooms: HTTP, agentic boundary, subprocess mechanics.

``http`` holds the HTTP endpoint and its mechanics, ``agentic`` the agentic boundary, and
``subprocess`` the process mechanics for CLI adapters. Modules at this level are shared by the
rooms: endpoint configuration, the call event, error classification, UTF-8 decoding.
"""
