"""SDK fidelity, end to end and live (LIONAGI_LIVE=1 and PERPLEXITY_API_KEY) for perplexity."""

from lionagi.service_testing.vendor_checks import VendorChecks


class TestPerplexityVendor(VendorChecks):
    # The row's base URL has no path: the fake server's root stands for it.
    provider, model, key_env, path = "perplexity", "sonar", "PERPLEXITY_API_KEY", ""
