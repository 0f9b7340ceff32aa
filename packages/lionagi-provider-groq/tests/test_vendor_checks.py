"""SDK fidelity, end to end and live (LIONAGI_LIVE=1 and GROQ_API_KEY) for the groq row."""

from lionagi.service_testing.vendor_checks import VendorChecks


class TestGroqVendor(VendorChecks):
    provider, model, key_env, path = "groq", "llama-3.1-8b-instant", "GROQ_API_KEY", "/openai/v1"
