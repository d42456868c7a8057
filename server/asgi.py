"""The ASGI types the server's middlewares are written against (Streamlit's server is Starlette on
uvicorn; `st.App(middleware=…)` wraps it in ours)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Any]]
Send = Callable[[Any], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
