"""The widgets a tab holds: what the server drew (`Widget`), the value a freshly drawn one holds
(`initial_state`) and another valid value a person could pick (`Widget.random_move`)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from streamlit.proto.ButtonGroup_pb2 import ButtonGroup
from streamlit.proto.WidgetStates_pb2 import WidgetState

MULTI_SELECT = ButtonGroup.ClickMode.MULTI_SELECT  # st.pills(selection_mode="multi")
# Widgets that change how a view is presented, not what it computes: a student exploring moves the
# settings; the load leaves these alone (every chart's data as a table, the lesson's projector mode),
# so its figures stay comparable with runs from before they existed.
PRESENTATION_KEYS = ("tables", "lesson_projector")


def presentation(widget_id: str) -> bool:
    """Whether the widget with this id (Streamlit's "$$ID-<hash>-<key>") is a PRESENTATION_KEYS one."""
    return any(widget_id.endswith(f"-{key}") for key in PRESENTATION_KEYS)


@dataclass
class Widget:
    """A widget the server drew: enough of its proto to send back a valid value."""

    id: str
    kind: str
    proto: Any
    script_hash: str          # the script that drew it (app.py's hash for the shared sidebar)
    state: WidgetState        # the value this tab holds for it
    fragment: str = ""        # the fragment that drew it: moving it reruns only that fragment
    path: tuple[int, ...] = ()  # where on the page (the delta's path): a fragment's run replaces its part

    def random_move(self, rng: random.Random) -> WidgetState | None:
        """A different valid value, as a person would pick it; None when there is no other."""
        p, out = self.proto, WidgetState(id=self.id)
        if presentation(self.id):
            return None
        if self.kind == "checkbox":
            out.bool_value = not self.state.bool_value
            return out
        if (self.kind in ("selectbox", "radio") or (self.kind == "slider" and p.options)
                or (self.kind == "button_group" and p.click_mode != MULTI_SELECT)):  # one choice
            others = [o for o in option_texts(self.kind, p) if o != _current_text(self.state)]
            if not others:
                return None
            pick = rng.choice(others)
            if self.kind in ("slider", "button_group"):
                out.string_array_value.data.append(pick)
            else:
                out.string_value = pick
            return out
        if self.kind in ("multiselect", "button_group"):
            options = option_texts(self.kind, p)
            for _ in range(8):
                chosen = rng.sample(options, rng.randint(1, min(3, len(options))))
                if sorted(chosen) != sorted(self.state.string_array_value.data):
                    out.string_array_value.data.extend(o for o in options if o in chosen)
                    return out
            return None
        if self.kind == "slider":  # numeric: anywhere on the track, on a step
            if len(p.value or p.default) != 1:
                return None  # range sliders are not used by the app
            steps = round((p.max - p.min) / p.step)
            current = self.state.double_array_value.data[0] if self.state.double_array_value.data else None
            for _ in range(8):
                value = _on_step(p.min + rng.randint(0, steps) * p.step, p.data_type)
                if value != current:
                    out.double_array_value.data.append(value)
                    return out
            return None
        if self.kind == "number_input":  # typed or +/-: a few steps from the current value
            value = self.state.double_value + rng.choice((-1, 1)) * rng.randint(1, 3) * (p.step or 1)
            if p.has_min:
                value = max(p.min, value)
            if p.has_max:
                value = min(p.max, value)
            value = _on_step(value, p.data_type)
            if value == self.state.double_value:
                return None
            out.double_value = value
            return out
        return None


def _on_step(value: float, data_type: int) -> float:
    return float(round(value)) if data_type == 0 else round(value, 10)  # 0: INT in Slider/NumberInput


def _current_text(state: WidgetState) -> str | None:
    if state.HasField("string_value"):
        return state.string_value
    if state.string_array_value.data:
        return state.string_array_value.data[0]
    return None


def initial_state(kind: str, p: Any) -> WidgetState:
    """The value the frontend holds for a freshly drawn widget (its set value, else its default)."""
    s = WidgetState(id=p.id)
    if kind == "checkbox":
        s.bool_value = p.value if p.set_value else p.default
    elif kind == "slider" and p.options:  # select_slider: its formatted options
        values = list(p.raw_value) if p.set_value else [p.options[int(i)] for i in p.default]
        s.string_array_value.data.extend(values)
    elif kind == "slider":
        s.double_array_value.data.extend(p.value if p.set_value else p.default)
    elif kind == "number_input":
        s.double_value = p.value if p.set_value else p.default
    elif kind in ("selectbox", "radio"):
        if p.set_value:
            s.string_value = p.raw_value
        elif 0 <= p.default < len(p.options):
            s.string_value = p.options[p.default]
    elif kind in ("multiselect", "button_group"):  # button groups: st.pills, st.segmented_control
        options = option_texts(kind, p)
        values = list(p.raw_values) if p.set_value else [options[i] for i in p.default]
        s.string_array_value.data.extend(values)
    return s


def option_texts(kind: str, proto: Any) -> list[str]:
    """The options a choice widget of `kind` shows, as the frontend sends them back."""
    if kind == "button_group":
        return [o.content for o in proto.options]
    return list(proto.options)
