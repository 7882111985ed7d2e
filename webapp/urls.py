"""Top-level URLs: pages, the API, its schema and docs, the admin, and static files."""

from django.contrib import admin
from django.contrib.staticfiles.views import serve
from django.http import HttpRequest, HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from webapp.health import healthz
from webapp.metrics import metrics


def favicon(request: HttpRequest) -> HttpResponsePermanentRedirect:
    """``/favicon.ico``: the site's icon by the same (versioned) URL the pages name."""
    return HttpResponsePermanentRedirect(static("webapp/favicon.svg"))


urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("healthz/", healthz),
    path("metrics", metrics, name="metrics"),
    path("admin/", admin.site.urls),
    path("api/v1/", include("webapp.urls_api")),
    # The referees' calls (bot token checks), behind the internal service credential (webapp/internal.py).
    path("internal/v1/", include("webapp.internal")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="schema"), name="api-redoc"),
    # Browsers ask for /favicon.ico on pages that name no icon (the admin): the site's icon, not a 404.
    path("favicon.ico", favicon),
    path("hosted/", include("webapp.hosting.page_urls")),
    path("", include("webapp.datasets.page_urls")),
    path("tables/", include("webapp.tables.urls")),
    path("", include("webapp.pages.urls")),
]

# The site serves its own static files whatever DEBUG says: no CDN, and it works offline.
urlpatterns.append(re_path(r"^static/(?P<path>.*)$", serve, {"insecure": True}))

# Errors nobody answered: JSON with a stable code under /api/, HTML pages elsewhere (webapp/errors.py).
handler400 = "webapp.errors.bad_request"
handler403 = "webapp.errors.permission_denied"
handler404 = "webapp.errors.page_not_found"
handler500 = "webapp.errors.server_error"
