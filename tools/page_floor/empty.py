"""Streamlit's floor: a title and one line of text (see tools/page_floor/__init__.py)."""

import streamlit as st

st.title("Attention")
st.write("One line of text.")
