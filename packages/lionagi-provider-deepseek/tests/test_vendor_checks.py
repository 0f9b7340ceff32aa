"""SDK fidelity, end to end and live (LIONAGI_LIVE=1 and DEEPSEEK_API_KEY) for deepseek."""

from lionagi.service_testing.vendor_checks import VendorChecks


class TestDeepSeekVendor(VendorChecks):
    provider, model, key_env = "deepseek", "deepseek-chat", "DEEPSEEK_API_KEY"
