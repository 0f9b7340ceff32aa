"""SDK fidelity, end to end and live (LIONAGI_LIVE=1 and OPENROUTER_API_KEY) for openrouter."""

from lionagi.service_testing.vendor_checks import VendorChecks


class TestOpenRouterVendor(VendorChecks):
    provider, model, path = "openrouter", "openai/gpt-4.1-mini", "/api/v1"
    key_env = "OPENROUTER_API_KEY"
