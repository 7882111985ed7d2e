"""Forms of the author pages."""

from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING

from django import forms
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError

from referee.core.registry import game_names
from webapp.bots.models import DESCRIPTION_MAX_CHARS
from webapp.bots.services import bot_name_problem

# The sign-up form is generic over its user model only in django-stubs (not subscriptable at run time).
if TYPE_CHECKING:
    _SignUpFormBase = UserCreationForm[User]
else:
    _SignUpFormBase = UserCreationForm


def form_bot_name(value: str) -> None:
    """Refuses a bot name with the reason in words (letters of any script are allowed)."""
    problem = bot_name_problem(unicodedata.normalize("NFC", value))
    if problem is not None:
        raise ValidationError(problem)


class SignUpForm(_SignUpFormBase):
    """Author sign-up: a user name and a password twice."""


class LockoutAuthenticationForm(AuthenticationForm):
    """The login form, saying so when the account or address is locked out (``webapp.accounts.lockout``)."""

    error_messages = {  # noqa: RUF012 (Django reads it as a class attribute)
        **AuthenticationForm.error_messages,
        "locked_out": "Too many failed sign-ins for this account or from this address; try again in %(minutes)s min.",
    }

    def clean(self) -> dict[str, object]:
        from webapp.accounts import lockout

        wait = lockout.locked_for(self.data.get("username"), lockout.client_of(self.request))
        if wait:
            # Still counted: guessing during a lockout is a failure too (the lock itself is not extended).
            lockout.record_failure(self.data.get("username"), lockout.client_of(self.request))
            raise forms.ValidationError(
                self.error_messages["locked_out"], code="locked_out", params={"minutes": max(1, (wait + 59) // 60)}
            )
        return super().clean()


class BotForm(forms.Form):
    """Register a bot."""

    game = forms.ChoiceField(choices=())
    name = forms.CharField(
        max_length=64,
        strip=False,
        validators=[form_bot_name],
        help_text="1 to 64 letters of any script, digits and _ . -, starting with a letter or digit",
    )
    description = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}), required=False, max_length=DESCRIPTION_MAX_CHARS
    )

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.fields["game"].choices = [(g, g) for g in game_names()]  # type: ignore[attr-defined]
