"""Each page's headline statements with their checks: a statement a page shows (title, "What to notice",
summary cards) is a function here that says, from the page's own measured view, whether it holds at the
reader's settings, so the page words it for the range where it holds and a property test runs it over a
grid of settings (docs/science.md §2)."""
