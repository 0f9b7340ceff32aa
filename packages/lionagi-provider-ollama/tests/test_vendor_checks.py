"""SDK fidelity (chat, embeddings) and end to end on Ollama's OpenAI-compatible API.

Live cases run only with LIONAGI_LIVE=1 and OLLAMA_LIVE_MODEL naming a pulled model (no key).
"""

from lionagi.service_testing.vendor_checks import VendorEmbeddingsChecks


class TestOllamaVendor(VendorEmbeddingsChecks):
    provider, model, key_env, live_model_env = "ollama", "llama3.2", None, "OLLAMA_LIVE_MODEL"
    embeddings_model = "nomic-embed-text"
