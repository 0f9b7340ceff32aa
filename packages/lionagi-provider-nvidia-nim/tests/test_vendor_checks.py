"""SDK fidelity (chat, embeddings), end to end and live (LIONAGI_LIVE=1, NVIDIA_NIM_API_KEY)."""

from lionagi.service_testing.vendor_checks import VendorEmbeddingsChecks


class TestNimVendor(VendorEmbeddingsChecks):
    provider, model, key_env = "nvidia_nim", "meta/llama-3.1-8b-instruct", "NVIDIA_NIM_API_KEY"
    embeddings_model = "nvidia/nv-embedqa-e5-v5"
