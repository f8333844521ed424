"""Web server settings (FUZI_WEB_*), owned by the adapter; bot/settings nests them."""

from __future__ import annotations

import ipaddress

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class WebSettings(BaseSettings):
    """Web server of `fuzi serve` (FUZI_WEB_*): address, authentication, CORS and request limits.

    Without ``jwt_secret`` the server only starts on a loopback address and serves one local person
    (no login); with it every API call needs ``Authorization: Bearer <JWT>`` (HS256).
    """

    model_config = SettingsConfigDict(
        env_prefix="FUZI_WEB_", env_file=".env", env_file_encoding="utf-8", extra="ignore"
    )

    host: str = Field(
        "127.0.0.1", description="address `fuzi serve` binds (not loopback: FUZI_WEB_JWT_SECRET is required)"
    )
    port: int = Field(8080, ge=0, le=65535, description="port `fuzi serve` binds")
    jwt_secret: SecretStr | None = Field(
        None, description="HS256 key (32+ characters) for bearer tokens; unset: loopback only, one local person"
    )
    token_max_ttl: str = Field(
        "30d", description="longest token lifetime issued or accepted (a leaked token dies by then)"
    )
    allowed_hosts: str = Field(
        "", description="extra Host names a loopback server without a secret answers (else localhost/loopback only)"
    )
    trusted_proxies: str = Field(
        "", description="comma-separated proxy addresses/networks whose X-Forwarded-For names the client; empty: none"
    )
    cors_origins: str = Field(
        "", description="comma-separated origins allowed to call the API from another site's page; empty: none"
    )
    max_body_bytes: int = Field(
        65536, ge=1024, description="larger request bodies get 413 (photos have their own 10 MB)"
    )
    per_ip_per_minute: int = Field(
        120, ge=1, description="API requests per client address per minute, counted before authentication (429)"
    )
    public_url: str | None = Field(
        None,
        description="https address people reach `fuzi serve` at: Telegram's /read button, menu button, citation links",
    )
    heartbeat_s: float = Field(
        15.0, gt=0, description="an idle event stream gets an SSE comment this often, so proxies keep the connection"
    )

    @field_validator("jwt_secret")
    @classmethod
    def _long_enough(cls, v: SecretStr | None) -> SecretStr | None:
        if v is not None and v.get_secret_value() and len(v.get_secret_value()) < 32:
            raise ValueError("use at least 32 characters (e.g. the output of `openssl rand -hex 32`)")
        return v

    @field_validator("public_url")
    @classmethod
    def _https(cls, v: str | None) -> str | None:
        if v and not v.startswith(("https://", "http://127.0.0.1", "http://localhost")):
            raise ValueError("use an https:// address (Telegram opens Mini Apps over https only)")
        return v.rstrip("/") if v else None

    @field_validator("trusted_proxies")
    @classmethod
    def _addresses(cls, v: str) -> str:
        for item in _items(v):
            try:
                ipaddress.ip_network(item, strict=False)
            except ValueError:
                raise ValueError(f"{item!r} is not an address or network (e.g. 10.0.0.5, 10.0.0.0/8)") from None
        return v

    @property
    def origins(self) -> list[str]:
        return _items(self.cors_origins)

    @property
    def hosts(self) -> list[str]:
        return [h.lower() for h in _items(self.allowed_hosts)]

    @property
    def proxies(self) -> list[str]:
        return _items(self.trusted_proxies)


def _items(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]
