"""The language-model client: the only module that imports litellm, and only when a model is called.

litellm has import-time side effects (a price-map download, a ``.env`` walk, banners on stdout); the
environment switches below turn them off and must be set before the import. Retries of transient errors
happen here, not in litellm (its ``num_retries`` needs tenacity, which it does not declare), and
``max_retries=0`` stops the OpenAI SDK underneath from retrying on its own.
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

from refind_cli.errors import ModelError

LOCAL_HOSTS = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})
LOCAL_PROVIDERS = frozenset({"ollama", "ollama_chat"})
DEFAULT_RETRY_DELAYS = (1.0, 2.0, 4.0)
# A server on this machine (llama.cpp, vLLM, Ollama's OpenAI endpoint) wants some key string, never a real one.
LOCAL_PLACEHOLDER_KEY = "sk-local-no-key"


@dataclass(frozen=True, slots=True)
class ModelConfig:
    model: str
    api_base: str | None = None
    api_key: str | None = field(default=None, repr=False)
    timeout: float = 120.0


def resolve_config(model: str | None, api_base: str | None, env: Mapping[str, str]) -> ModelConfig | None:
    """The model settings from flags, then ``REFIND_*`` variables; None when no model is configured."""
    name = model or env.get("REFIND_MODEL") or None
    if not name:
        return None
    return ModelConfig(
        model=name,
        api_base=api_base or env.get("REFIND_API_BASE") or None,
        api_key=env.get("REFIND_API_KEY") or None,
    )


def is_local(model: str, api_base: str | None) -> bool:
    """True when chat text stays on this machine: a loopback api_base, or an Ollama model."""
    if api_base:
        host = (urlparse(api_base if "//" in api_base else f"//{api_base}").hostname or "").lower()
        if host in LOCAL_HOSTS:
            return True
        try:
            return ipaddress.ip_address(host).is_loopback
        except ValueError:
            return False
    return model.split("/", 1)[0] in LOCAL_PROVIDERS


@dataclass(frozen=True, slots=True)
class ToolCall:
    id: str
    name: str
    arguments: str  # raw JSON text as the model wrote it


@dataclass(frozen=True, slots=True)
class Completion:
    content: str
    tool_calls: tuple[ToolCall, ...]
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None

    def assistant_message(self) -> dict[str, Any]:
        """The message to append to the conversation so the next request carries this reply."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content or None}
        if self.tool_calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in self.tool_calls
            ]
        return message


class ToolsRejected(ModelError):
    """The provider refused a request because it carried tools: the caller may switch to the text protocol."""


def load_litellm() -> Any:
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"  # no price-map download at import
    os.environ["LITELLM_MODE"] = "PRODUCTION"  # no .env loading at import
    os.environ["LITELLM_LOG"] = "ERROR"  # no fallback tracebacks on stderr
    # pydantic warns about litellm's own TypedDicts (at import and on the first calls): noise on stderr.
    warnings.filterwarnings("ignore", message=r".*`ReadOnly` qualifier", category=UserWarning)
    import litellm

    litellm.suppress_debug_info = True
    return litellm


class LLMClient:
    """Chat completions with our own retry policy and one-line errors that never contain the API key."""

    def __init__(
        self,
        config: ModelConfig,
        *,
        retry_delays: Sequence[float] = DEFAULT_RETRY_DELAYS,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.config = config
        self.retry_delays = tuple(retry_delays)
        self._sleep = sleep
        self._litellm: Any = None
        self._provider: str | None = None
        self._api_key: str | None = None

    @property
    def model(self) -> str:
        return self.config.model

    @property
    def local(self) -> bool:
        return is_local(self.config.model, self.config.api_base)

    def provider(self) -> str:
        """The provider litellm will route to; raises ModelError for a model name it cannot place."""
        if self._provider is None:
            litellm = self._lib()
            try:
                _, provider, _, _ = litellm.get_llm_provider(self.config.model, api_base=self.config.api_base)
            except Exception as err:
                raise ModelError(
                    f"unknown model {self.config.model!r}: name it with its provider, e.g. openai/gpt-4o-mini"
                    " or ollama_chat/llama3.1"
                ) from err
            self._provider = str(provider)
        return self._provider

    def check(self) -> str:
        """Resolve the provider and the key without sending anything; returns the provider."""
        provider = self.provider()
        self._key()
        return provider

    def _lib(self) -> Any:
        if self._litellm is None:
            self._litellm = load_litellm()
        return self._litellm

    def _key(self) -> str | None:
        """The key to pass explicitly; None lets litellm read the provider's own variable."""
        if self._api_key is not None:
            return self._api_key
        if self.config.api_key:
            self._api_key = self.config.api_key
        elif self.local:
            self._api_key = LOCAL_PLACEHOLDER_KEY if self.provider() not in LOCAL_PROVIDERS else None
        else:
            env = self._lib().validate_environment(self.config.model, api_base=self.config.api_base)
            missing = [k for k in env.get("missing_keys") or [] if k.endswith("_KEY") or k.endswith("_TOKEN")]
            if missing:
                raise ModelError(
                    f"no API key for {self.config.model}: set {' or '.join(missing)} (or REFIND_API_KEY)"
                )
        return self._api_key

    def complete(
        self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] | None = None
    ) -> Completion:
        litellm = self._lib()
        provider = self.provider()
        kwargs: dict[str, Any] = {
            "model": self.config.model,
            "messages": list(messages),
            "temperature": 0,
            "timeout": self.config.timeout,
            "max_retries": 0,
        }
        if self.config.api_base:
            kwargs["api_base"] = self.config.api_base
        key = self._key()
        if key:
            kwargs["api_key"] = key
        if tools:
            kwargs["tools"] = list(tools)
            kwargs["tool_choice"] = "auto"
        for attempt in range(len(self.retry_delays) + 1):
            try:
                response = litellm.completion(**kwargs)
            except Exception as err:
                kind = classify(err)
                if kind == "transient" and attempt < len(self.retry_delays):
                    self._sleep(self.retry_delays[attempt])
                    continue
                raise self._model_error(err, kind, provider, bool(tools), attempt + 1) from None
            return self._completion(response)
        raise AssertionError("unreachable: the loop returns or raises")

    def _completion(self, response: Any) -> Completion:
        message = response.choices[0].message
        calls = tuple(
            ToolCall(
                id=str(c.id or f"call_{i}"),
                name=str(c.function.name or ""),
                arguments=c.function.arguments
                if isinstance(c.function.arguments, str)
                else json.dumps(c.function.arguments),
            )
            for i, c in enumerate(getattr(message, "tool_calls", None) or [])
        )
        usage = getattr(response, "usage", None)
        try:
            cost: float | None = float(self._lib().completion_cost(completion_response=response))
        except Exception:
            # Unmapped models (ModelNotMappedError) and local servers have no price: report tokens only.
            cost = None
        return Completion(
            content=str(message.content or ""),
            tool_calls=calls,
            prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
            completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
            cost_usd=cost,
        )

    def _model_error(
        self, err: Exception, kind: str, provider: str, had_tools: bool, attempts: int
    ) -> ModelError:
        name = self.config.model
        detail = self.scrub(short_message(err))
        if kind == "rejected" and had_tools and mentions_tools(detail):
            return ToolsRejected(f"{name}: the provider rejected tool calls: {detail}")
        where = f" at {_without_password(self.config.api_base)}" if self.config.api_base else ""
        if kind == "unreachable":
            return ModelError(f"cannot reach {provider}{where} for {name}: {detail}")
        if kind == "auth":
            return ModelError(f"{provider} refused the API key for {name}: {detail}")
        if kind == "not_found":
            return ModelError(f"unknown model {name} at {provider}{where}: {detail}")
        if kind == "transient":
            return ModelError(f"{name} failed after {attempts} attempts: {detail}")
        return ModelError(f"{name}: {detail}")

    def scrub(self, text: str) -> str:
        base_password = urlparse(self.config.api_base or "").password
        secrets = {self.config.api_key, self._api_key, base_password, *_env_keys()}
        for secret in secrets - {None, "", LOCAL_PLACEHOLDER_KEY}:
            if secret and len(secret) >= 6:
                text = text.replace(secret, "***")
        return text


def _without_password(url: str) -> str:
    """``url`` as it may be shown: a password in it (``http://user:SECRET@host``) becomes ``***``."""
    parts = urlparse(url)
    if parts.password is None:
        return url
    user = parts.username or ""
    return parts._replace(netloc=f"{user}:***@{parts.netloc.rpartition('@')[2]}").geturl()


def _env_keys() -> set[str]:
    return {v for k, v in os.environ.items() if k.endswith("_API_KEY") or k == "REFIND_API_KEY"}


def _chain(err: BaseException) -> list[str]:
    names = []
    seen: set[int] = set()
    cur: BaseException | None = err
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        names.append(type(cur).__name__)
        cur = cur.__cause__ or cur.__context__
    return names


def classify(err: BaseException) -> str:
    """transient | unreachable | auth | not_found | rejected | other, from litellm's exception types.

    litellm reports a refused connection as an InternalServerError (500) whose cause is the SDK's
    APIConnectionError, so the cause chain decides before the status code does. The SDK's timeout error is
    a subclass of its connection error: check timeouts first."""
    chain = _chain(err)
    status = getattr(err, "status_code", None)
    if any(n in ("Timeout", "APITimeoutError", "ReadTimeout", "ConnectTimeout") for n in chain):
        return "transient"
    if any(n in ("APIConnectionError", "ConnectError", "ConnectionRefusedError") for n in chain[1:]):
        return "unreachable"
    if type(err).__name__ == "APIConnectionError":
        return "unreachable"
    if "Missing credentials" in str(err) or type(err).__name__ in (
        "AuthenticationError",
        "PermissionDeniedError",
    ):
        return "auth"
    if type(err).__name__ in (
        "RateLimitError",
        "ServiceUnavailableError",
        "InternalServerError",
        "BadGatewayError",
    ):
        return "transient"
    if isinstance(status, int) and (status == 429 or status >= 500):
        return "transient"
    if type(err).__name__ == "NotFoundError" or status == 404:
        return "not_found"
    if type(err).__name__ in (
        "BadRequestError",
        "UnsupportedParamsError",
        "UnprocessableEntityError",
    ) or status in (400, 422):
        return "rejected"
    return "other"


def mentions_tools(text: str) -> bool:
    low = text.lower()
    return any(word in low for word in ("tool", "function"))


def short_message(err: BaseException) -> str:
    """The provider's own words, without litellm's class-name prefixes, on one line."""
    lines = str(err).strip().splitlines()
    text = _PREFIX_RE.sub("", lines[0]) if lines else ""
    return text[:300] or type(err).__name__


_PREFIX_RE = re.compile(r"^(?:\s*(?:litellm\.)?\w*(?:Error|Exception|Timeout)\s*[:-]\s*)+")
