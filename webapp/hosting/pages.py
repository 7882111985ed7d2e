"""Pages of hosted bots: the upload form on the bot's page, an upload's checks and logs, and the
logs panel on the match page. Everything here is the bot's author's only.

The bot page and the match page include the panels through the template tags in
``webapp.hosting.templatetags.hosting_tags``; the form posts to :func:`upload_page`, which writes
through ``hosting.services.do_upload`` like the API and ``brawl bot upload``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST
from rest_framework.exceptions import APIException

from webapp.bots.models import Bot
from webapp.hosting import checks, services
from webapp.hosting.models import HostedUpload, UploadStatus
from webapp.permissions import signed_in_user


@dataclass(frozen=True)
class Check:
    """One check an upload goes through, as the author sees it."""

    name: str
    state: str
    """``passed``, ``failed``, ``waiting`` or ``not needed``."""
    detail: str = ""


def upload_checks(row: HostedUpload) -> list[Check]:
    """The checks of ``row`` in order: those on arrival, the import check, the validation match."""
    arrival = [
        Check("size", "passed", f"{row.size_bytes} bytes (at most {checks.MAX_UPLOAD_BYTES // 2**20} MiB)"),
        Check(
            "layout and syntax",
            "passed",
            f"{row.stored_bytes} bytes unpacked (at most {checks.MAX_UNPACKED_BYTES // 2**20} MiB, "
            f"{checks.MAX_FILES} files); entry {row.entry} found"
            + ("; every .py file compiles" if row.kind == "python" else ""),
        ),
    ]
    waiting = row.status in (UploadStatus.PENDING, UploadStatus.VALIDATING)
    import_failed = row.status == UploadStatus.REJECTED and row.summary == "the import check failed"
    if row.kind != "python":
        imported = Check("import check in the sandbox", "not needed", "an executable, not a Python class")
    elif waiting:
        imported = Check("import check in the sandbox", "waiting", "the bot host runs it next")
    else:
        imported = Check("import check in the sandbox", "failed" if import_failed else "passed")
    if waiting:
        match = Check("validation match against the random house bot", "waiting", "after the import check")
    elif import_failed:
        match = Check("validation match against the random house bot", "not run", "the import check failed")
    else:
        state = "passed" if row.status == UploadStatus.READY else "failed"
        match = Check("validation match against the random house bot", state, row.summary)
    return [*arrival, imported, match]


def quota(user: User) -> dict[str, Any]:
    """What is left of the author's upload quotas."""
    now = timezone.now()
    recent = HostedUpload.objects.filter(uploaded_by=user, created__gte=now - timedelta(days=1)).count()
    return {
        "uploads_left": max(0, services.UPLOADS_PER_DAY - recent),
        "uploads_per_day": services.UPLOADS_PER_DAY,
        "stored_bytes": services.author_stored_bytes(user),
        "stored_limit": services.STORED_BYTES_PER_AUTHOR,
        "max_upload": checks.MAX_UPLOAD_BYTES,
    }


def bot_panel(user: Any, bot: Bot, csrf_token: object = None) -> dict[str, Any]:
    """The context of the bot page's hosted-versions panel: empty unless ``user`` is the author."""
    if not getattr(user, "is_authenticated", False) or user.pk != bot.owner_id:
        return {"show": False}
    rows = list(HostedUpload.objects.filter(bot=bot).select_related("version").order_by("-created")[:20])
    return {"show": True, "bot": bot, "uploads": rows, "csrf_token": csrf_token, **quota(user)}


@login_required
@require_POST
def upload_page(request: HttpRequest, bot_id: int) -> HttpResponse:
    """The bot page's upload form: stores the upload and goes back to the bot page, saying what happened."""
    bot = get_object_or_404(Bot, pk=bot_id)
    if bot.owner_id != request.user.pk:
        raise Http404("No such bot of yours.")
    upload = request.FILES.get("file")
    if upload is None:
        messages.error(request, "Choose a file to upload.")
        return redirect(f"/bots/{bot.pk}/#hosted")
    try:
        row = services.do_upload(
            signed_in_user(request),
            bot,
            upload.name or "bot",
            upload.read(),
            request.POST.get("entry", "").strip(),
            request.POST.get("notes", "").strip(),
        )
    except APIException as exc:
        messages.error(request, f"Upload refused: {exc.detail}")
        return redirect(f"/bots/{bot.pk}/#hosted")
    messages.success(
        request, f"Upload {row.pk} stored (SHA-256 {row.sha256}); the bot host checks it and plays a validation match."
    )
    return redirect(f"/bots/{bot.pk}/#hosted")


@login_required
def upload_detail_page(request: HttpRequest, upload_id: int) -> HttpResponse:
    """An upload's checks, validation log and runs: the author's only (anyone else gets a 404)."""
    row = get_object_or_404(HostedUpload.objects.select_related("bot", "version"), pk=upload_id)
    if row.bot.owner_id != request.user.pk:
        raise Http404("No such upload of yours.")
    return render(
        request,
        "hosting/upload.html",
        {"row": row, "checks": upload_checks(row), "runs": list(row.runs.all()[:20])},
    )
