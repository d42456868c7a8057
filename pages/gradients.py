import streamlit as st

from pages.ui.i18n import t

st.title(t("gradients.nav"))
