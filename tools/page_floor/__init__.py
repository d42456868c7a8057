"""Reference apps for `python -m tools.page_timing --floor`. `empty.py` draws a title and one line
of text; `one_chart.py` adds one small Altair chart drawn as the app's pages draw theirs (Vega-Lite
in the browser): what Streamlit itself costs a browser, with none of this app's code, so no page of
the app can be faster on the same machine. `app_shell.py` draws the same chart inside app.py's
router (page config, sidebar controls, navigation, URL sync; the app's own server): what every page
costs before its own content, so a page's time less the shell's is what that page adds."""
