"""The ASGI application: the site over HTTP and the people's tables over WebSockets (Django Channels).

``brawl asgi`` serves it with daphne (``service/asgi.py``); ``brawl run`` runs it beside the WSGI
site for the table sockets. A socket's origin must be one of ``ALLOWED_HOSTS``, and its session
cookie signs the person in (``AuthMiddlewareStack``), as for the pages.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")
django_application = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402  (Django must be set up first)
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from webapp.tables.routing import websocket_urlpatterns  # noqa: E402

sockets = URLRouter(websocket_urlpatterns)  # type: ignore[arg-type]  # the stubs want channels' own patterns
application = ProtocolTypeRouter(
    {
        "http": django_application,
        "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(sockets)),
    }
)
