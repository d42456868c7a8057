"""A local cluster: Redis, N app servers and HAProxy on loopback, as deploy/compose.yaml runs them.

`python -m tools.cluster --help`; docs/hosting.md ("Several replicas") for the figures measured on it.
"""
