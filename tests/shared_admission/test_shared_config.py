"""SharedAdmission settings: field-named errors, no password in any text, no redis import."""

from __future__ import annotations

import subprocess
import sys

import pytest

from lionagi.service import AdmissionConfig, AdmissionConfigError, SharedAdmission, iModel
from lionagi.service._lifecycle.backends import build_admission

URL = "redis://:hunter2-secret-pw@127.0.0.1:6390/0"


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"url": ""}, "url"),
        ({"url": "http://127.0.0.1:6379"}, "url"),
        ({"url": "redis://"}, "url"),
        ({"url": "redis://127.0.0.1:notaport"}, "url"),
        ({"key": ""}, "key"),
        ({"key": "has space"}, "key"),
        ({"key": "{tag}"}, "key"),
        ({"lease_ttl": 0}, "lease_ttl"),
        ({"lease_ttl": float("nan")}, "lease_ttl"),
        ({"renew_interval": 30.0}, "renew_interval"),
        ({"poll_interval": -1}, "poll_interval"),
        # Re-asked and handed back only every 30 s: permits would return only by expiring.
        ({"poll_interval": 30.0}, "poll_interval"),
        ({"lease_ttl": 1.0, "op_timeout": 0.5, "poll_interval": 2.0}, "poll_interval"),
        ({"op_timeout": 0}, "op_timeout"),
        # 30 s TTL renewed every 10 s: a renewal taking 20 s or more could land after expiry.
        ({"op_timeout": 20.0}, "op_timeout"),
        ({"lease_ttl": 1.0}, "op_timeout"),  # the default 2 s cap outlives a 1 s permit
        ({"lease_ttl": 6.0, "renew_interval": 5.0, "op_timeout": 1.0}, "op_timeout"),
        ({"on_unavailable": "ignore"}, "on_unavailable"),
    ],
)
def test_invalid_settings_name_the_field(kwargs: dict[str, object], field: str) -> None:
    values: dict[str, object] = {"url": "redis://127.0.0.1:6379/0", "key": "prod-key"}
    values.update(kwargs)
    with pytest.raises(AdmissionConfigError) as info:
        SharedAdmission(**values)  # type: ignore[arg-type]
    assert info.value.field == field


def test_a_round_trip_cap_shorter_than_the_renewal_margin_is_accepted() -> None:
    base = {"url": "redis://127.0.0.1:6379/0", "key": "prod-key"}
    assert SharedAdmission(**base, op_timeout=19.5).op_timeout == 19.5  # type: ignore[arg-type]
    short = SharedAdmission(**base, lease_ttl=1.0, op_timeout=0.5)  # type: ignore[arg-type]
    assert short.renew_every + short.op_timeout < short.lease_ttl


@pytest.mark.parametrize("option", ["socket_timeout=30", "socket_connect_timeout=1&db=2"])
def test_url_timeouts_that_would_override_op_timeout_are_refused(option: str) -> None:
    # redis-py takes them from the query and they silently replaced op_timeout, the keeper
    # thread's blocking calls included.
    with pytest.raises(AdmissionConfigError) as info:
        SharedAdmission(url=f"redis://:hunter2@127.0.0.1:6379/0?{option}", key="prod-key")
    assert info.value.field == "url"
    assert "op_timeout" in str(info.value) and "hunter2" not in str(info.value)
    SharedAdmission(url="redis://127.0.0.1:6379/0?db=2", key="prod-key")  # other options pass


def test_password_never_appears_in_text() -> None:
    backend = SharedAdmission(url=URL, key="prod-key")
    assert "hunter2" not in repr(backend)
    assert "hunter2" not in str(backend.public_dict())
    assert "hunter2" not in backend.redacted_url
    with pytest.raises(AdmissionConfigError) as info:
        SharedAdmission(url="ftp://:hunter2-secret-pw@host/0", key="k")
    assert "hunter2" not in str(info.value)


def test_backend_of_the_wrong_type_is_refused_by_field() -> None:
    with pytest.raises(AdmissionConfigError) as info:
        build_admission(AdmissionConfig(), "redis://localhost")  # type: ignore[arg-type]
    assert info.value.field == "admission_backend"


def test_imodel_serializes_the_backend_redacted_and_needs_it_again() -> None:
    backend = SharedAdmission(url=URL, key="prod-key")
    model = iModel(provider="scripted", admission_backend=backend, limit_requests=5)
    assert model.admission_backend is backend
    data = model.to_dict()
    assert "hunter2" not in str(data)
    assert data["admission_backend"]["key"] == "prod-key"
    with pytest.raises(Exception, match="admission_backend"):
        iModel.from_dict(data)
    again = iModel.from_dict(data, admission_backend=backend)
    assert again.admission_backend is backend
    assert model.copy().admission_backend is backend


def test_importing_core_and_configuring_never_imports_redis() -> None:
    code = (
        "import sys\n"
        "import lionagi.service as s\n"
        "from lionagi.service import SharedAdmission, AdmissionBackendUnavailable, iModel\n"
        "SharedAdmission(url='redis://127.0.0.1:1/0', key='k')\n"
        "m = iModel(provider='scripted')\n"
        "import lionagi.service.lifecycle, lionagi.service.http\n"
        "print(sorted(k for k in sys.modules if k == 'redis' or k.startswith('redis.')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
