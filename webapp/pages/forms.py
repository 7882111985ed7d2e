"""Forms of the author pages."""

from __future__ import annotations

from django import forms
from django.contrib.auth.forms import UserCreationForm

from referee.core.registry import game_names


class SignUpForm(UserCreationForm):
    """Author sign-up: a user name and a password twice."""


class BotForm(forms.Form):
    """Register a bot."""

    game = forms.ChoiceField(choices=())
    name = forms.RegexField(
        regex=r"^[A-Za-z0-9][A-Za-z0-9_.-]{1,63}$", max_length=64, help_text="Letters, digits, _ . -"
    )
    description = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False)

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.fields["game"].choices = [(g, g) for g in game_names()]  # type: ignore[attr-defined]
