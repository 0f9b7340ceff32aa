"""Deployment settings of an agentic endpoint: which binary, which gateway, which home.

An HTTP endpoint is deployed through its ``EndpointConfig`` (base URL, key). A CLI adapter needs
different knobs, and before this model none could reach it through ``iModel``: the binary path,
the model gateway the CLI should talk to, extra environment, the working directory and whose
configuration the CLI reads. :class:`AgenticSettings` is that one typed record. It travels with
the endpoint (``iModel(agentic_settings=...)``, ``match_endpoint``, ``copy()``, ``to_dict``
without secrets) and each adapter maps it to its CLI through documented hooks on
:class:`~lionagi.service.AgenticEndpoint` (``gateway_env``, ``gateway_args``,
``isolated_home_env``, ``seed_isolated_home``).

Config home (``config_home``):

``"user"``      the CLI reads the user's own login and config (``HOME`` is always set: from
                this process, else the password database), as a person running the CLI by
                hand expects;
``"isolated"``  a throwaway home owned by the endpoint, created at the first launch, seeded with
                the adapter's headless settings and removed when the endpoint closes;
``None``        the deployment default: ``$LIONAGI_SERVICE_CONFIG_HOME`` (``user`` or
                ``isolated``), else ``"user"``. Test suites set ``isolated`` there.

Containment root (``root``): without it, a run's repository (its working directory, and the
boundary its ``workspace`` and vendor path fields are contained in) is whatever the request's
``repo`` says, so a server passing requests through cannot keep an agent out of ``/``. With it,
every repository is itself contained in ``root`` (see ``SubprocessCliEndpoint.repository``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    ValidationInfo,
    field_serializer,
    field_validator,
)

from ..._base.errors import EndpointConfigurationError
from ..._base.secrets import is_env_name, redact_url
from ..._base.validation import first_error

__all__ = [
    "CONFIG_HOME_ENV",
    "AgenticLaunch",
    "AgenticSettings",
    "ConfigHomeMode",
    "coerce_agentic_settings",
]

ConfigHomeMode = Literal["user", "isolated"]
CONFIG_HOME_ENV = "LIONAGI_SERVICE_CONFIG_HOME"


class _ReadOnlyEnv(Mapping[str, SecretStr]):
    """`AgenticSettings.env` as stored: read-only, so a frozen record is frozen all the way down.

    With a plain dict, `settings.env["X"] = ...` changed every copy of a model and, through the
    shared empty settings, every endpoint built without settings. `types.MappingProxyType` would
    refuse the write too, but it cannot be pickled or deep-copied, which `copy.deepcopy` and
    `model_copy(deep=True)` of a settings record need; this mapping can.
    """

    __slots__ = ("_data",)

    def __init__(self, data: Mapping[str, SecretStr]) -> None:
        self._data = dict(data)

    def __getitem__(self, key: str) -> SecretStr:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return repr(self._data)

    def __reduce__(self) -> tuple[type[_ReadOnlyEnv], tuple[dict[str, SecretStr]]]:
        return (_ReadOnlyEnv, (self._data,))


class AgenticSettings(BaseModel):
    """How an agentic endpoint is deployed; immutable, unknown fields refused.

    Attributes:
        binary: Program to run instead of the adapter's default (a name on `PATH` or a path).
        gateway_url: Base URL of the model gateway the CLI should use (`http`/`https`); the
            adapter maps it to its CLI (an environment variable, a flag, a models file).
        gateway_api_key: Key for that gateway; never serialized, redacted from stderr.
        env: Extra environment variables for the child, as a read-only mapping. Values are
            treated as secrets: they are masked in `repr`, never serialized, and redacted from
            captured stderr.
        root: Opt-in containment boundary of every run (an absolute path). When set, the
            request's `repo` must resolve (symlinks followed) inside it, a relative `repo` is
            taken relative to it, and an absent `repo` means `cwd`, else `root` itself; so
            `workspace` and every vendor path field contained in the repository stay inside
            it too. A run that would escape fails before launch. None: the repository is the
            request's `repo` as given, as before.
        cwd: Working directory of the CLI when the request names none. With `root` set it
            must be inside `root` (a relative `cwd` is taken relative to it), checked here.
        config_home: `"user"`: the CLI reads the user's own login and config, as a person
            running it by hand expects. `"isolated"`: a throwaway home owned by the endpoint,
            created at the first launch, seeded with the adapter's headless settings and
            removed when the endpoint closes. None: the deployment default,
            `$LIONAGI_SERVICE_CONFIG_HOME` (`user` or `isolated`), else `"user"`.
        terminate_grace: Seconds a CLI gets between SIGTERM and SIGKILL when its run is torn
            down (0 to 600). None: the adapter's own (5 s by default). A CLI that ignores
            SIGTERM keeps a cancellation (Ctrl-C, an outer timeout) waiting this long; a run's
            deadline already cuts it to about one second.
    """

    # defer_build: the validator is built on first use, not at import (cold start).
    model_config = ConfigDict(
        frozen=True, extra="forbid", hide_input_in_errors=True, defer_build=True
    )

    binary: str | None = None
    gateway_url: str | None = None
    gateway_api_key: SecretStr | None = None
    env: Mapping[str, SecretStr] = Field(default_factory=lambda: _ReadOnlyEnv({}))
    # Declared before ``cwd``: the ``cwd`` validator reads the validated ``root``.
    root: Path | None = None
    cwd: Path | None = None
    config_home: ConfigHomeMode | None = None
    terminate_grace: float | None = Field(default=None, ge=0, le=600, allow_inf_nan=False)

    @field_validator("binary")
    @classmethod
    def _binary(cls, value: str | None) -> str | None:
        if value is not None and (not value.strip() or "\x00" in value):
            raise ValueError("must be a non-empty program name or path without NUL bytes")
        return value

    @field_validator("gateway_url")
    @classmethod
    def _gateway_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("must be an http:// or https:// URL with a host")
        if parts.username or parts.password:
            raise ValueError("must not embed credentials; use gateway_api_key")
        return value

    @field_validator("env")
    @classmethod
    def _env(cls, value: Mapping[str, SecretStr]) -> Mapping[str, SecretStr]:
        for name, secret in value.items():
            if not is_env_name(name):
                raise ValueError(f"invalid variable name {name!r}")
            if "\x00" in secret.get_secret_value():
                raise ValueError(f"value of {name} contains a NUL byte")
        return _ReadOnlyEnv(value)

    @field_validator("root")
    @classmethod
    def _root(cls, value: Path | None) -> Path | None:
        if value is None:
            return None
        if "\x00" in os.fspath(value):
            raise ValueError("must be a directory path without NUL bytes")
        if not value.is_absolute():
            # Relative to what? The process's working directory can change under a server;
            # a boundary that moves with it is no boundary.
            raise ValueError("must be an absolute path (the boundary must not depend on the cwd)")
        return value

    @field_validator("cwd")
    @classmethod
    def _cwd(cls, value: Path | None, info: ValidationInfo) -> Path | None:
        root = info.data.get("root")
        if value is not None and root is not None:
            problem = _cwd_outside_root(root, value)
            if problem is not None:
                raise ValueError(problem)
        return value

    @field_serializer("env")
    def _dump_env(self, value: Mapping[str, SecretStr]) -> dict[str, SecretStr]:
        # A dump is a plain dict (values stay SecretStr, masked), as before env became read-only.
        return dict(value)

    def env_values(self) -> dict[str, str]:
        """`env` in clear text, for the child's environment only."""
        return {name: secret.get_secret_value() for name, secret in self.env.items()}

    def secret_values(self) -> tuple[str, ...]:
        """Every value to redact from a child's stderr: the gateway key and all env values."""
        found = [s.get_secret_value() for s in self.env.values()]
        if self.gateway_api_key is not None:
            found.append(self.gateway_api_key.get_secret_value())
        return tuple(v for v in found if v)

    def resolved_config_home(self, environ: Mapping[str, str] | None = None) -> ConfigHomeMode:
        """`config_home`, or the deployment default when it is None.

        Raises:
            EndpointConfigurationError: `$LIONAGI_SERVICE_CONFIG_HOME` holds another value.
        """
        if self.config_home is not None:
            return self.config_home
        raw = (os.environ if environ is None else environ).get(CONFIG_HOME_ENV, "").strip()
        if not raw:
            return "user"
        if raw == "user":
            return "user"
        if raw == "isolated":
            return "isolated"
        raise EndpointConfigurationError(
            "config_home", f"${CONFIG_HOME_ENV} must be 'user' or 'isolated', got {raw!r}"
        )

    def __repr_args__(self) -> Any:
        # The gateway URL as public_dict writes it: a token in its query is no more shown in a
        # repr or str (logs, tracebacks) than in a dump; the key and env values are SecretStr.
        for name, value in super().__repr_args__():
            if name == "gateway_url" and isinstance(value, str):
                value = redact_url(value)
            yield name, value

    def public_dict(self) -> dict[str, Any]:
        """The serializable part: no key, no env values (only their names), JSON types.

        `gateway_url` is written as `base_url` is (redacted: query values such
        as `?key=...` replaced, `api-version` kept): a gateway token in its query was
        written in clear text before. Restoring such a URL needs the real one again.
        """
        out: dict[str, Any] = {}
        if self.binary is not None:
            out["binary"] = self.binary
        if self.gateway_url is not None:
            out["gateway_url"] = redact_url(self.gateway_url)
        if self.root is not None:
            out["root"] = os.fspath(self.root)
        if self.cwd is not None:
            out["cwd"] = os.fspath(self.cwd)
        if self.config_home is not None:
            out["config_home"] = self.config_home
        if self.env:
            out["env_names"] = sorted(self.env)
        if self.gateway_api_key is not None:
            out["gateway_api_key_set"] = True
        return out

    @classmethod
    def from_public_dict(cls, data: Mapping[str, Any]) -> AgenticSettings:
        """Rebuild the non-secret fields `public_dict` wrote (name-only keys skipped)."""
        keys = ("binary", "gateway_url", "root", "cwd", "config_home")
        fields = {k: data[k] for k in keys if k in data}
        return coerce_agentic_settings(fields)

    def default_directory(self) -> Path | None:
        """Where a run works when its request names no `repo`, before resolution.

        `cwd` (under `root` when `cwd` is relative and `root` is set), else `root`, else None
        (this process's working directory).
        """
        if self.cwd is None:
            return self.root
        if self.root is not None and not self.cwd.is_absolute():
            return self.root / self.cwd
        return self.cwd

    def merged(self, other: AgenticSettings) -> AgenticSettings:
        """These settings with every field `other` set explicitly taking precedence.

        Raises:
            EndpointConfigurationError: the merged `cwd` is outside the merged `root` (field
                `agentic_settings.cwd`), which neither record alone may show.
        """
        if not other.model_fields_set:
            return self
        update = {name: getattr(other, name) for name in other.model_fields_set}
        merged = self.model_copy(update=update)  # no validation: check the one cross-field rule
        if merged.root is not None and merged.cwd is not None:
            problem = _cwd_outside_root(merged.root, merged.cwd)
            if problem is not None:
                raise EndpointConfigurationError("agentic_settings.cwd", problem)
        return merged


@dataclass(frozen=True, slots=True)
class AgenticLaunch:
    """Settings resolved for one subprocess launch (`AgenticEndpoint.launch_settings()`).

    Attributes:
        program: `binary` from the settings, or None for the adapter's default program.
        args: Gateway arguments from the adapter's `gateway_args` hook, placed before the
            prompt by the adapter.
        env: `HOME` (user or isolated), the adapter's home and gateway variables, then the
            settings' `env` (which wins); pass as `SubprocessSpec.env`.
        inherit_env: Names to copy from this process: locale and user; in user mode also the
            XDG dirs, proxies and CA bundles, and the adapter's `user_inherit_env`.
        cwd: The settings' working directory (`default_directory()`: `cwd`, else `root`),
            used when the request names none.
        secrets: Values to redact from the child's stderr and error events: the settings'
            secrets and, in user mode, the inherited values of credential-looking names.
    """

    program: str | None
    args: tuple[str, ...]
    env: dict[str, str]
    inherit_env: tuple[str, ...]
    cwd: Path | None
    secrets: tuple[str, ...]


def coerce_agentic_settings(
    value: AgenticSettings | Mapping[str, Any] | None, *, field: str = "agentic_settings"
) -> AgenticSettings:
    """Validate ``value`` into settings; errors name ``field.<key>`` and never echo a value.

    Raises:
        EndpointConfigurationError: an unknown key or an invalid value.
    """
    if value is None:
        return _empty()
    if isinstance(value, AgenticSettings):
        return value
    if not isinstance(value, Mapping):
        raise EndpointConfigurationError(
            field, f"expected AgenticSettings or a mapping, got {type(value).__name__}"
        )
    try:
        return AgenticSettings.model_validate(dict(value))
    except ValidationError as exc:
        loc, message = first_error(exc, "")
        raise EndpointConfigurationError(f"{field}.{loc}" if loc else field, message) from None


def _cwd_outside_root(root: Path, cwd: Path) -> str | None:
    """Why `cwd` is not inside `root`, or None when it is.

    Symlinks are resolved where they exist, but neither directory has to exist yet (a missing
    `cwd` is a launch error, as without `root`); each launch checks again, strictly. A
    relative `cwd` is taken relative to `root` under the rules of a relative request path
    (`contained_path`): no `..` component and no leading `~`.
    """
    text = os.fspath(cwd)
    if "\x00" in text:
        return "must be a directory path without NUL bytes"
    if cwd.is_absolute():
        candidate = cwd
    else:
        if text.startswith("~"):
            return f"{text!r} starts with '~'; give a path inside root {root}"
        if ".." in cwd.parts:
            return f"{text!r} contains '..'; give a path inside root {root}"
        candidate = root / cwd
    real_root = Path(os.path.realpath(root))
    real = Path(os.path.realpath(candidate))
    if not real.is_relative_to(real_root):
        return f"{text!r} resolves to {real}, outside root {real_root}"
    return None


@cache
def _empty() -> AgenticSettings:
    """The shared empty settings (frozen), built on first use so import builds no validator."""
    return AgenticSettings()
