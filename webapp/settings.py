"""Django settings for the Brawl Ladder site, read from the environment through ``common.settings``
(the typed settings module every process shares) and ``webapp.config`` (the database URL).

Environment variables:
    BRAWL_ENV: ``development`` (default), ``test`` or ``production``.
    SECRET_KEY: required in production; an insecure, marked default otherwise.
    DEBUG: ``true``/``false``; false unless set, in every environment.
    ALLOWED_HOSTS: comma-separated host names; ``localhost,127.0.0.1`` outside production.
    DATABASE_URL: ``postgresql://user@host:port/name``; required in production; SQLite in
        ``./var/brawl.sqlite3`` when unset elsewhere.
    REDIS_URL: the cache and Celery broker; required in production; a file cache shared by the
        machine's processes under ``BRAWL_VAR_DIR/cache`` otherwise.
    BRAWL_TRUSTED_PROXIES: addresses/networks of the reverse proxies whose ``X-Forwarded-For`` is
        believed (none by default).
    BRAWL_VAR_DIR: where SQLite, replay files and uploads live; ``./var`` by default.
    BRAWL_CHALLENGES_PER_DAY: unrated challenge matches an author may request per UTC day.
    BRAWL_METRICS_ALLOW: addresses/networks that may read ``/metrics`` without a staff login (loopback).
"""

from __future__ import annotations

import ipaddress
from pathlib import Path

from common.settings import parse_count, parse_positive_int, var_dir
from webapp.config import (
    INSECURE_DEV_SECRET_KEY,
    ConfigurationError,
    Environment,
    default_sqlite,
    env,
    parse_bool,
    parse_database_url,
    parse_list,
)

BASE_DIR = Path(__file__).resolve().parent
"""The ``webapp`` package directory (templates and static files live under it)."""

BRAWL_ENV: Environment = env("BRAWL_ENV", Environment, Environment.DEVELOPMENT)
_production = BRAWL_ENV is Environment.PRODUCTION

if _production:
    SECRET_KEY: str = env("SECRET_KEY", str, required=True)
    if SECRET_KEY == INSECURE_DEV_SECRET_KEY:
        raise ConfigurationError("SECRET_KEY is the insecure development default; set a real one in production")
else:
    SECRET_KEY = env("SECRET_KEY", str, INSECURE_DEV_SECRET_KEY)

# Debug pages show settings, SQL and source to anyone who triggers an error: only when asked for.
DEBUG: bool = bool(env("DEBUG", parse_bool, False))
ALLOWED_HOSTS: list[str] = env(
    "ALLOWED_HOSTS", parse_list, [] if _production else ["localhost", "127.0.0.1", "[::1]", "testserver"]
)
if _production and not ALLOWED_HOSTS:
    raise ConfigurationError("ALLOWED_HOSTS is required in production")

VAR_DIR: Path = var_dir()
"""Writable directory for SQLite, replay files and generated archives."""
REPLAY_DIR = VAR_DIR / "replays"
"""Where replays too large for the database are written (``Match.replay_path`` is relative to it)."""

_db_url = env("DATABASE_URL", str, required=_production)
DATABASES = {"default": (parse_database_url(_db_url) if _db_url else default_sqlite(VAR_DIR.parent)).as_django()}
if not _db_url:
    DATABASES["default"]["NAME"] = str(VAR_DIR / "brawl.sqlite3")
    # A test run on the embedded default gets its own file beside it (pytest-django suffixes it per worker).
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test-brawl.sqlite3")}
    VAR_DIR.mkdir(parents=True, exist_ok=True)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

if _production:
    # Every process that calls the referees' internal API (the web tier's live views, workers, beat)
    # needs the shared secret; failing here names it at start instead of at the first live view.
    _internal_token = env("BRAWL_INTERNAL_TOKEN", str, required=True)
    if len(_internal_token) < 24:
        raise ConfigurationError("BRAWL_INTERNAL_TOKEN must be at least 24 characters in production")

REDIS_URL: str | None = env("REDIS_URL", str, required=_production)
"""Required in production: without it every process would keep its own cache and throttle counts."""
CACHES = {
    "default": (
        {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}
        if REDIS_URL
        # Shared by every process of the machine, so throttle counts and frames are too (webapp/cache.py).
        else {
            "BACKEND": "webapp.cache.SharedFileCache",
            "LOCATION": str(VAR_DIR / "cache"),
            "OPTIONS": {"MAX_ENTRIES": 50_000},
        }
    )
}

ASGI_APPLICATION = "webapp.asgi.application"
CHANNEL_LAYERS = {
    "default": (
        # A read timeout above the layer's 5 s blocking pop: without one, redis-py 8 times the pop's
        # read out at the pop's own 5 s and an idle socket's consumer fails.
        {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [{"address": REDIS_URL, "socket_timeout": 30}]},
        }
        if REDIS_URL
        # Embedded defaults: one ASGI process (brawl run's), so its own memory is the whole layer.
        else {"BACKEND": "channels.layers.InMemoryChannelLayer"}
    )
}
"""People's tables push over WebSockets (Django Channels, ``webapp.tables``): Redis under ``REDIS_URL``."""

BRAWL_TRUSTED_PROXIES: str = env("BRAWL_TRUSTED_PROXIES", str, "")
"""Reverse proxies (comma-separated addresses or networks) whose ``X-Forwarded-For`` is believed."""
try:
    for _net in BRAWL_TRUSTED_PROXIES.split(","):
        if _net.strip():
            ipaddress.ip_network(_net.strip(), strict=False)
except ValueError as _exc:
    raise ConfigurationError(f"BRAWL_TRUSTED_PROXIES: {_exc}") from _exc

DATA_UPLOAD_MAX_MEMORY_SIZE = 2_621_440
"""Largest request body (2.5 MiB, Django's default, stated): larger API requests get a JSON 413."""

BRAWL_LOGIN_FAILURES_PER_ACCOUNT: int = env("BRAWL_LOGIN_FAILURES_PER_ACCOUNT", parse_positive_int, 10)
"""Failed sign-ins to one account within the lockout window that lock it for the window (at least 1)."""
BRAWL_LOGIN_FAILURES_PER_ADDRESS: int = env("BRAWL_LOGIN_FAILURES_PER_ADDRESS", parse_positive_int, 30)
"""Failed sign-ins from one address within the lockout window that lock that address out (at least 1)."""
BRAWL_LOGIN_LOCKOUT_SECONDS: int = env("BRAWL_LOGIN_LOCKOUT_SECONDS", parse_positive_int, 900)
"""The window failures are counted in, and how long a lockout lasts (at least 1 s: a lockout of 0 s is none)."""
AUTHENTICATION_BACKENDS = ["webapp.accounts.lockout.LockoutBackend"]
"""Django's model backend behind the sign-in lockout (``webapp/accounts/lockout.py``)."""

BRAWL_REFEREE_PUBLIC_ADDRESS: str = env("BRAWL_REFEREE_PUBLIC_ADDRESS", str, "127.0.0.1:50051")
"""HOST:PORT bots connect to, as authors must write it (shown in the token page's ``brawl bot run`` command)."""
BRAWL_TABLES_REFEREE: str = env("BRAWL_TABLES_REFEREE", str, "")
"""The referee bot port(s) people's seat clients connect to (``HOST:PORT``, comma-separated); empty: the public one."""
BRAWL_TABLES_WS_URL: str = env("BRAWL_TABLES_WS_URL", str, "")
"""Where the table page opens its socket when the ASGI server is not the page's origin: ``ws://HOST:PORT``, or
``:PORT`` for the page's own host name on another port (``brawl run``)."""
BRAWL_LONGPOLL_SLOTS: int = env("BRAWL_LONGPOLL_SLOTS", parse_count, 2)
"""Long-polls of one web process that may wait at once (``webapp.longpoll``); the rest answer at once."""
BRAWL_CHALLENGES_PER_DAY: int = env("BRAWL_CHALLENGES_PER_DAY", parse_count, 50)
"""Unrated challenge matches one author may request per UTC day; 0 turns challenges off."""
BRAWL_INLINE_REPLAY_MAX_BYTES: int = env("BRAWL_INLINE_REPLAY_MAX_BYTES", parse_count, 4 * 1024 * 1024)
"""Compressed replays up to this size are kept in the database; larger ones go to REPLAY_DIR (0: all of them)."""

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "webapp.accounts",
    "webapp.bots",
    "webapp.matches",
    "webapp.rankings",
    "webapp.tournaments",
    "webapp.hosting",
    "webapp.notifications",
    "webapp.datasets",
    "webapp.pages",
    "webapp.tables",
]

MIDDLEWARE = [
    "webapp.middleware.ClientAddressMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "webapp.middleware.ApiGuardMiddleware",
    "webapp.middleware.FramesGZipMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "webapp.urls"
WSGI_APPLICATION = "webapp.wsgi.application"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "webapp.pages.context.site",
            ]
        },
    }
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 8}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "my-bots"
LOGOUT_REDIRECT_URL = "home"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = VAR_DIR / "static"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # {% static %} URLs carry a digest of the file, so a browser never runs an old script against new data.
    "staticfiles": {"BACKEND": "webapp.staticfiles.VersionedStaticFilesStorage"},
}

SESSION_COOKIE_SECURE = _production
CSRF_COOKIE_SECURE = _production
if _production:
    # Production runs behind a TLS-terminating proxy (Caddy, ingress-nginx) that sets
    # X-Forwarded-Proto and overwrites any value a client sent; without this Django believes every
    # request is plain HTTP and the CSRF origin check refuses every form over HTTPS.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_PAGINATION_CLASS": "webapp.api.Pagination",
    "DEFAULT_PARSER_CLASSES": [
        "webapp.parsers.BoundedJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    # The client's address is resolved once, behind trusted proxies only (webapp.middleware.ClientAddressMiddleware);
    # 0 makes DRF's throttles use it instead of reading X-Forwarded-For themselves.
    "NUM_PROXIES": 0,
    "PAGE_SIZE": 50,
    "DEFAULT_THROTTLE_CLASSES": [
        "rest_framework.throttling.AnonRateThrottle",
        "rest_framework.throttling.UserRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env("BRAWL_THROTTLE_ANON", str, "600/hour"),
        "user": env("BRAWL_THROTTLE_USER", str, "5000/hour"),
        "frames": env("BRAWL_THROTTLE_FRAMES", str, "120/hour"),
        "replay": env("BRAWL_THROTTLE_REPLAY", str, "600/hour"),
        "api_token": env("BRAWL_THROTTLE_API_TOKEN", str, "20/hour"),
        "signup": env("BRAWL_THROTTLE_SIGNUP", str, "20/hour"),
        "dataset": env("BRAWL_THROTTLE_DATASET", str, "60/hour"),
    },
    "EXCEPTION_HANDLER": "webapp.api.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Brawl Ladder API",
    "DESCRIPTION": "Bots, ratings, matches, replays and tournaments of the Brawl Ladder.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # Choice sets named for what they are (several share a field name, or one set several names).
    "ENUM_NAME_OVERRIDES": {
        "MatchStatusEnum": "webapp.matches.models.MatchStatus",
        "TournamentStatusEnum": "webapp.tournaments.models.TournamentStatus",
        "UploadStatusEnum": "webapp.hosting.models.UploadStatus",
        "EventKindEnum": "webapp.notifications.models.EventKind",
    },
}

# Every process logs the same way (``common.logsetup``: BRAWL_LOG_FORMAT=text|json, BRAWL_LOG_LEVEL,
# BRAWL_LOG_DIR, the ``extra`` fields such as ``match_id`` kept on each line).
LOGGING_CONFIG = "common.logsetup.django_setup"
LOGGING = {"service": "web"}

BRAWL_DISPATCH: str = env("BRAWL_DISPATCH", str, "none")
"""``celery`` to send queued matches to the workers; ``none`` to leave them in the table."""
BRAWL_RUN_MATCH_TASK: str = env("BRAWL_RUN_MATCH_TASK", str, "workers.tasks.start_match")
"""Name of the Celery task that runs one match, given its id."""
CELERY_BROKER_URL = REDIS_URL
BRAWL_PAGE_REFRESH_DELAY: float = env("BRAWL_PAGE_REFRESH_DELAY", float, 1.0)
"""Seconds a worker waits after a result before refreshing the cached pages it changed (``webapp.pages.refresh``):
the results recorded meanwhile share that refresh. Refreshes are sent only with ``BRAWL_DISPATCH=celery``."""
BRAWL_PAGE_STALE_SECONDS: float = env("BRAWL_PAGE_STALE_SECONDS", float, 5.0)
"""How long after a result a reader may still be shown the cached page from before it, while its refresh runs
(``webapp.cache.read_through``); 0 never shows one. Keep it above the refresh delay."""

BRAWL_METRICS_ALLOW: str = env("BRAWL_METRICS_ALLOW", str, "127.0.0.1,::1")
"""Addresses and networks (comma-separated) that may read ``/metrics`` without a staff login."""
try:
    for _net in BRAWL_METRICS_ALLOW.split(","):
        if _net.strip():
            ipaddress.ip_network(_net.strip(), strict=False)
except ValueError as _exc:
    raise ConfigurationError(f"BRAWL_METRICS_ALLOW: {_exc}") from _exc
