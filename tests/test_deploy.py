"""The deployment files (deploy/), checked here because neither Docker nor a cluster runs in CI.

Every Kubernetes manifest is validated against the API's own schemas (kubernetes-validate ships them;
strict: unknown fields are errors) and its important settings are asserted. No JSON schema of the
Compose file format is available offline, so compose.yaml's structure is checked by hand below. The
HAProxy configuration is checked by HAProxy itself (`haproxy -c`), as written and as the local
cluster generates it. No server starts here (fast tier), but for the Redis containers' start script,
run once on this machine (marked `server`).
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
import secrets
import shlex
import shutil
import signal
import subprocess
import time
from pathlib import Path

import kubernetes_validate
import pytest
import yaml
from conftest import ROOT, free_port

from tools.cluster.haproxy_cfg import HAPROXY, SOURCE, ConfigError, Server, check, cookie_name, runtime_cfg

DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "k8s"
K8S_VERSIONS = ("1.30.0", "1.37.0")  # the oldest still common, the newest the validator ships
HEALTH = "/_stcore/health"
COOKIE = cookie_name(SOURCE.read_text())


def manifests(folder: Path = K8S, recursive: bool = True) -> list[tuple[Path, dict]]:
    files = sorted(folder.rglob("*.yaml") if recursive else folder.glob("*.yaml"))
    return [(p, doc) for p in files for doc in yaml.safe_load_all(p.read_text()) if doc]


def one(kind: str, name: str) -> dict:
    found = [d for _, d in manifests() if d["kind"] == kind and d["metadata"]["name"] == name]
    assert len(found) == 1, f"expected one {kind} {name}, found {len(found)}"
    return found[0]


def pod_spec(name: str) -> dict:
    return one("Deployment", name)["spec"]["template"]["spec"]


def container(name: str) -> dict:
    (c,) = pod_spec(name)["containers"]
    return c


# ------------------------------------------------------------------ Kubernetes


@pytest.mark.parametrize("version", K8S_VERSIONS)
def test_every_manifest_is_valid_for_the_kubernetes_api(version):
    docs = manifests()
    assert {d["kind"] for _, d in docs} >= {"Deployment", "Service", "Ingress", "HorizontalPodAutoscaler",
                                             "NetworkPolicy", "Secret", "PodDisruptionBudget"}
    for _, doc in docs:
        kubernetes_validate.validate(doc, version, strict=True)  # raises with the path of the fault


def test_the_validator_rejects_a_misspelt_field():
    """The validation above bites: a probe's misspelt field is an error, not ignored."""
    doc = one("Deployment", "ase-app")
    bad = yaml.safe_load(yaml.safe_dump(doc))
    bad["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]["httpGett"] = {"path": HEALTH}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(bad, K8S_VERSIONS[0], strict=True)


def test_app_pods_are_probed_on_streamlits_health_endpoint():
    c = container("ase-app")
    ports = {p["name"]: p["containerPort"] for p in c["ports"]}
    assert ports == {"http": 8501}
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        get = c[probe]["httpGet"]
        assert (get["path"], ports[get["port"]]) == (HEALTH, 8501), probe
    # liveness is slower to give up than readiness: a busy server leaves rotation before it is killed
    live, ready = c["livenessProbe"], c["readinessProbe"]
    assert (live["periodSeconds"] * live["failureThreshold"]
            > ready["periodSeconds"] * ready["failureThreshold"])


REDIS = {"ase-redis": "noeviction", "ase-redis-cache": "allkeys-lru"}  # Deployment → its policy


def test_app_and_redis_run_as_non_root_and_the_app_as_the_images_user():
    uid = dockerfile_user()
    for name in ("ase-app", *REDIS):
        ctx = pod_spec(name)["securityContext"]
        assert ctx["runAsNonRoot"] is True and ctx["runAsUser"] != 0, name
        assert container(name)["securityContext"]["allowPrivilegeEscalation"] is False, name
    assert pod_spec("ase-app")["securityContext"]["runAsUser"] == uid


def test_app_resources_follow_the_measured_memory():
    """docs/performance.md: ~150 MB at start, 420-530 MB with 30 sessions, 640 MB at the peak."""
    res = container("ase-app")["resources"]
    assert res["requests"] == {"cpu": "1", "memory": "768Mi"}
    assert res["limits"]["memory"] == "1Gi"


def redis_options(script: str) -> dict[str, str]:
    """The options after `redis-server <config file>` in a Redis container's shell script."""
    words = shlex.split(script.split("exec ", 1)[1])
    words = words[words.index("redis-server") + 2:]
    return dict(zip(words[::2], words[1::2], strict=True))


def test_redis_is_inside_the_cluster_only_and_bounded():
    services = [d for _, d in manifests() if d["kind"] == "Service"]
    assert all(s["spec"].get("type", "ClusterIP") == "ClusterIP" for s in services)
    assert not any("nodePort" in p for s in services for p in s["spec"]["ports"])
    for name, policy in REDIS.items():
        redis = one("Service", name)
        assert redis["spec"]["type"] == "ClusterIP" and redis["spec"]["ports"][0]["port"] == 6379
        sh, dash_c, script = container(name)["command"]
        assert (sh, dash_c) == ("sh", "-c") and "args" not in container(name)
        opts = redis_options(script)
        assert opts["--maxmemory-policy"] == policy and opts["--save"] == "", name
        assert int(opts["--maxmemory"].removesuffix("mb")) * 2**20 < 2**20 * int(
            container(name)["resources"]["limits"]["memory"].removesuffix("Mi"))


def test_rooms_and_results_live_in_separate_redis_servers():
    """Results are evicted (allkeys-lru) on a server of their own; rooms, limits and admission on
    one that evicts nothing, so a full cache never drops a class (tests/test_server_redis_limits.py
    fills a cache past its memory during a class)."""
    values = {e["name"]: e.get("value") for e in container("ase-app")["env"]}
    assert values["ASE_REDIS_URL"] == "redis://ase-redis:6379/0"
    assert values["ASE_REDIS_CACHE_URL"] == "redis://ase-redis-cache:6379/0"
    services = compose()["services"]
    env = services["app1"]["environment"]
    assert (env["ASE_REDIS_URL"], env["ASE_REDIS_CACHE_URL"]) == ("redis://redis:6379/0",
                                                                  "redis://redis-cache:6379/0")
    for name, policy in (("redis", "noeviction"), ("redis-cache", "allkeys-lru")):
        assert redis_options(services[name]["command"][2])["--maxmemory-policy"] == policy


def test_only_the_app_reaches_redis_and_only_the_ingress_reaches_the_app():
    policy = one("NetworkPolicy", "ase-redis-from-app-only")["spec"]
    app_labels = one("Deployment", "ase-app")["spec"]["template"]["metadata"]["labels"]
    assert policy["policyTypes"] == ["Ingress"]
    for name in REDIS:
        redis_labels = one("Deployment", name)["spec"]["template"]["metadata"]["labels"]
        assert policy["podSelector"]["matchLabels"].items() <= redis_labels.items(), name
    assert not policy["podSelector"]["matchLabels"].items() <= app_labels.items()
    (rule,) = policy["ingress"]
    (source,) = rule["from"]
    assert set(source) == {"podSelector"}
    assert source["podSelector"]["matchLabels"].items() <= app_labels.items()
    assert rule["ports"] == [{"protocol": "TCP", "port": 6379}]
    app = one("NetworkPolicy", "ase-app-from-ingress-only")["spec"]
    assert app["podSelector"]["matchLabels"].items() <= app_labels.items()
    (rule,) = app["ingress"]
    assert [set(src) for src in rule["from"]] == [{"namespaceSelector"}]


def test_every_secret_a_pod_reads_is_a_mounted_file_and_none_is_applied_with_the_folder():
    secrets = {d["metadata"]["name"]: d for _, d in manifests() if d["kind"] == "Secret"}
    for name in ("ase-app", *REDIS):
        envs = container(name).get("env", [])
        assert not [e for e in envs if "valueFrom" in e], f"{name}: a secret in the environment"
        volumes = {v["name"]: v["secret"] for v in pod_spec(name)["volumes"] if "secret" in v}
        mounts = {m["name"]: m for m in container(name)["volumeMounts"] if m["name"] in volumes}
        assert volumes and mounts.keys() == volumes.keys() and all(m["readOnly"] for m in mounts.values())
        for vol in volumes.values():
            assert vol["defaultMode"] == 0o440 and pod_spec(name)["securityContext"]["fsGroup"]
            for item in vol["items"]:
                assert item["key"] in secrets[vol["secretName"]].get("stringData", {})
    values = {e["name"]: e.get("value") for e in container("ase-app")["env"]}
    (mount,) = [m for m in container("ase-app")["volumeMounts"] if m["name"] == "redis-password"]
    assert values["ASE_REDIS_PASSWORD_FILE"] == f"{mount['mountPath']}/password"
    # `kubectl apply -f deploy/k8s/` does not descend into secret/: no password from git is applied
    assert not [d for _, d in manifests(K8S, recursive=False) if d["kind"] == "Secret"]


PASSWORD_ON_A_LINE = re.compile(r"requirepass\s+[\"']?\$|--requirepass|redis://[^/\s]*:[^/@\s]+@|"
                                r"\$\(ASE_REDIS_PASSWORD\)|\$\{ASE_REDIS_PASSWORD|\$\(REDIS_PASSWORD\)")


def test_no_password_reaches_a_command_line_or_a_url_in_any_deployment_file():
    """The password goes from a file to a config file (Redis) or to the app's reader
    (ASE_REDIS_PASSWORD_FILE): never an argument, an environment value or part of a URL."""
    files = [*sorted(K8S.rglob("*.yaml")), DEPLOY / "compose.yaml", DEPLOY / "Dockerfile"]
    for path in files:
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if not line.lstrip().startswith("#"):
                assert not PASSWORD_ON_A_LINE.search(line), f"{path.name}:{n}: {line.strip()}"
    commands = [c.get("command", []) + c.get("args", []) for name in ("ase-app", *REDIS)
                for c in [container(name)]]
    commands += [s.get("command", []) for s in compose()["services"].values()]
    for words in commands:
        text = " ".join(words) if isinstance(words, list) else words
        assert "requirepass" not in text.split("printf", 1)[0], text  # only the config file's line
    # the check bites: the files as they were would fail it
    assert PASSWORD_ON_A_LINE.search('ASE_REDIS_URL: "redis://:${ASE_REDIS_PASSWORD:?set}@redis:6379/0"')
    assert PASSWORD_ON_A_LINE.search("- --requirepass")


@pytest.mark.server
@pytest.mark.skipif(not Path("/usr/bin/redis-server").exists(), reason="no redis-server")
@pytest.mark.parametrize("where", ["compose", "k8s"])
def test_the_redis_start_script_keeps_the_password_off_the_command_line(tmp_path, where):
    """The containers' script, run here with its paths moved into a temporary folder: Redis asks for
    the password, and neither Redis' nor any argument list holds it."""
    if where == "compose":
        script = compose()["services"]["redis"]["command"][2].replace("$$", "$")
        secret = "/run/secrets/redis_password"
        script = script.replace("&& chown redis:redis /run/redis/auth.conf", "").replace("su-exec redis ", "")
    else:
        script = container("ase-redis")["command"][2].replace("$$", "$")
        secret = "/run/secrets/ase-redis/password"
    password, port = secrets.token_hex(16), free_port()
    (tmp_path / "run").mkdir()
    (tmp_path / "secret").write_text(password + "\n")
    script = script.replace(secret, str(tmp_path / "secret")).replace("/run/redis", str(tmp_path / "run"))
    script = script.replace("redis-server ", "/usr/bin/redis-server ").replace(
        "--save", f"--port {port} --bind 127.0.0.1 --dir {tmp_path} --save")
    proc = subprocess.Popen(["sh", "-c", script], cwd=tmp_path, stdout=subprocess.DEVNULL,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        import redis

        deadline = time.monotonic() + 20
        while True:
            try:
                assert redis.Redis(port=port, password=password, socket_timeout=1).ping()
                break
            except redis.ConnectionError:
                assert proc.poll() is None and time.monotonic() < deadline, "redis did not start"
                time.sleep(0.05)
        with pytest.raises(redis.AuthenticationError):
            redis.Redis(port=port, socket_timeout=1).get("x")
        cmdline = Path(f"/proc/{proc.pid}/cmdline").read_bytes()  # exec: the shell became Redis
        assert b"redis-server" in cmdline and password.encode() not in cmdline
        assert oct((tmp_path / "run" / "auth.conf").stat().st_mode & 0o777) == "0o600"
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(10)


def test_the_app_believes_forwarded_for_from_the_balancer_only():
    services = compose()["services"]
    balancer_ip = services["balancer"]["networks"]["front"]["ipv4_address"]
    subnet = compose()["networks"]["front"]["ipam"]["config"][0]["subnet"]
    assert ipaddress.ip_address(balancer_ip) in ipaddress.ip_network(subnet)
    for name in services:
        if re.fullmatch(r"app\d+", name):
            assert services[name]["environment"]["ASE_TRUSTED_PROXIES"] == f"{balancer_ip}/32"
    values = {e["name"]: e.get("value") for e in container("ase-app")["env"]}
    assert ipaddress.ip_network(values["ASE_TRUSTED_PROXIES"]).is_private
    lines = [line.split("#")[0].strip() for line in SOURCE.read_text().splitlines()]
    assert "option forwardfor" in lines


def test_ingress_keeps_a_tab_on_its_pod_with_the_balancers_cookie():
    ingress = one("Ingress", "ase-app")
    notes = {k.removeprefix("nginx.ingress.kubernetes.io/"): v
             for k, v in ingress["metadata"]["annotations"].items()}
    assert notes["affinity"] == "cookie" and notes["affinity-mode"] == "persistent"
    assert notes["session-cookie-name"] == COOKIE
    assert int(notes["proxy-read-timeout"]) >= 3600 and int(notes["proxy-send-timeout"]) >= 3600
    backend = ingress["spec"]["rules"][0]["http"]["paths"][0]["backend"]["service"]
    assert backend["name"] == "ase-app" and one("Service", "ase-app")["spec"]["ports"][0]["name"] == "http"


def test_the_autoscaler_scales_the_app():
    hpa = one("HorizontalPodAutoscaler", "ase-app")["spec"]
    assert hpa["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": "ase-app"}
    assert 2 <= hpa["minReplicas"] < hpa["maxReplicas"]


# ------------------------------------------------------------------ Compose


def compose() -> dict:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())


def test_compose_runs_replicas_behind_the_balancer_with_a_private_redis():
    doc = compose()
    services = doc["services"]
    apps = sorted(name for name in services if re.fullmatch(r"app\d+", name))
    assert set(services) == {*apps, "balancer", "redis", "redis-cache"} and len(apps) >= 2
    # each replica is a server line of the balancer's configuration, under the same name and cookie
    servers = re.findall(r"^\s+server (\S+) (\S+):8501 .*cookie (\S+)", SOURCE.read_text(),
                         flags=re.MULTILINE)
    assert [(n, h, c) for n, h, c in servers] == [(a, a, a) for a in apps]
    balancer = services["balancer"]
    assert "./haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro" in balancer["volumes"]
    assert balancer["ports"] == ["8080:8080"] and "bind :8080" in SOURCE.read_text()
    for app in apps:
        s = services[app]
        assert s["environment"]["ASE_REDIS_PASSWORD_FILE"] == "/run/secrets/redis_password"
        assert s["secrets"] == ["redis_password"]
        assert HEALTH in " ".join(s["healthcheck"]["test"])
        assert s["depends_on"]["redis"]["condition"] == "service_healthy"
        assert s["depends_on"]["redis-cache"]["condition"] == "service_healthy"
        assert "ports" not in s  # only the balancer is published
        assert s["build"] == {"context": "..", "dockerfile": "deploy/Dockerfile"}
    assert all(balancer["depends_on"][a]["condition"] == "service_healthy" for a in apps)
    assert "/healthz" in " ".join(balancer["healthcheck"]["test"])
    assert "monitor-uri /healthz" in SOURCE.read_text()


def test_compose_redis_has_a_required_password_and_no_published_port():
    doc = compose()
    assert doc["secrets"]["redis_password"] == {"file": "./redis-password"}
    assert "deploy" in (DEPLOY / "Dockerfile.dockerignore").read_text().split()  # the password file too
    for name in ("redis", "redis-cache"):
        redis = doc["services"][name]
        assert "ports" not in redis and "expose" not in redis and "environment" not in redis
        opts = redis_options(redis["command"][2])
        assert (opts["--save"], opts["--appendonly"]) == ("", "no")
        assert "requirepass" in redis["command"][2] and redis["secrets"] == ["redis_password"]
        check = redis["healthcheck"]["test"]
        assert "ping" in " ".join(check) and "REDISCLI_AUTH" in check[1]
        # Redis lives on the internal network only, which the balancer is not on
        assert redis["networks"] == ["back"] and doc["networks"]["back"]["internal"] is True
    assert "back" not in doc["services"]["balancer"]["networks"]


# ------------------------------------------------------------------ HAProxy

needs_haproxy = pytest.mark.skipif(not HAPROXY.exists(),
                                   reason=f"{HAPROXY} is missing: apt-get install haproxy (.ci/run does)")


@needs_haproxy
def test_haproxy_accepts_the_file_as_written():
    check(SOURCE)


@needs_haproxy
def test_haproxy_accepts_the_local_clusters_file(tmp_path):
    cfg = tmp_path / "haproxy.cfg"
    cfg.write_text(runtime_cfg(SOURCE.read_text(), 18080, [Server("app1", 18501), Server("app2", 18502)],
                               tmp_path / "haproxy.sock"))
    output = check(cfg)
    assert "WARNING" not in output, output  # every address resolves: nothing disabled


def test_the_local_clusters_file_changes_only_addresses_and_servers(tmp_path):
    source = SOURCE.read_text()
    text = runtime_cfg(source, 18080, [Server(f"app{i}", 18500 + i) for i in (1, 2, 3, 4)], tmp_path / "s")
    binds = re.findall(r"^\s+bind (\S+)", text, flags=re.MULTILINE)
    assert binds == ["127.0.0.1:18080"]  # listens on loopback only
    assert re.findall(r"^\s+server .*", text, flags=re.MULTILINE) == [
        f"    server app{i} 127.0.0.1:{18500 + i} check cookie app{i}" for i in (1, 2, 3, 4)]
    settings = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    assert not [line for line in settings if "resolvers" in line]
    assert f"stats socket {tmp_path / 's'} mode 600 level user" in text
    replaced = re.compile(r"\s+(bind|server|stats socket|default-server|nameserver|hold)\b|resolvers")
    kept = {line for line in source.splitlines() if not replaced.match(line)}
    assert kept <= set(text.splitlines())  # every other line as written


def test_haproxy_keeps_sessions_and_websockets_and_leaves_origin_alone():
    text = SOURCE.read_text()
    lines = [line.split("#")[0].strip() for line in text.splitlines()]
    assert f"cookie {COOKIE} insert indirect nocache httponly" in lines
    assert "timeout tunnel 1h" in lines and "option forwardfor" in lines and "option redispatch 1" in lines
    assert f"http-check send meth GET uri {HEALTH}" in lines and "http-check expect string ok" in lines
    # nothing rewrites the request's Host or Origin: Streamlit's own checks see what the browser sent
    rewrites = [line for line in lines if re.match(r"http-request\s+(set|del|replace)-header", line)]
    assert not rewrites, rewrites
    # the runtime API on a unix socket only
    assert re.search(r"^\s+stats socket /\S+\.sock mode 600", text, flags=re.MULTILINE)


def test_the_generator_refuses_a_file_it_cannot_place_on_loopback():
    with pytest.raises(ConfigError):
        runtime_cfg(SOURCE.read_text() + "\nlisten stats\n    bind :9000\n", 1, [Server("a", 2)], Path("/s"))
    with pytest.raises(ConfigError):
        cookie_name("backend app\n    balance leastconn\n")


# ------------------------------------------------------------------ Dockerfile


def dockerfile() -> list[tuple[str, str]]:
    """(instruction, arguments) of deploy/Dockerfile, continuation lines joined."""
    text = re.sub(r"\\\n\s*", " ", (DEPLOY / "Dockerfile").read_text())
    return [(m[1].upper(), m[2]) for m in re.finditer(r"^(\w+)\s+(.*)$", text, flags=re.MULTILINE)]


def dockerfile_user() -> int:
    users = [args for ins, args in dockerfile() if ins == "USER"]
    assert len(users) == 1 and users[0].isdigit(), users  # numeric: runAsNonRoot can check it
    return int(users[0])


def test_dockerfile_runs_the_app_as_a_non_root_user_with_a_health_check():
    steps = dockerfile()
    assert steps[0] == ("FROM", "python:3.11-slim")
    assert dockerfile_user() != 0
    (health,) = [args for ins, args in steps if ins == "HEALTHCHECK"]
    assert f"http://127.0.0.1:8501{HEALTH}" in health
    (cmd,) = [args for ins, args in steps if ins == "CMD"]
    assert json.loads(cmd) == [
        "streamlit", "run", "app.py", "--server.address", "0.0.0.0", "--server.port", "8501",
        "--server.headless", "true"]
    # the USER comes after everything that installs
    names = [ins for ins, _ in steps]
    assert names.index("USER") > max(i for i, n in enumerate(names) if n in ("RUN", "COPY"))


def test_dockerfile_installs_torchs_cpu_build_at_the_pinned_version():
    pin = re.search(r"^torch==(\S+)$", (ROOT / "requirements.txt").read_text(), flags=re.MULTILINE)[1]
    (install,) = [args for ins, args in dockerfile() if ins == "RUN" and "torch" in args]
    assert f"--index-url https://download.pytorch.org/whl/cpu torch=={pin}" in install
    assert "pip install -r requirements.txt" in install


def test_ci_installs_what_these_tests_and_the_cluster_need():
    ci = (ROOT / ".ci" / "run").read_text()
    assert "redis-server" in ci and "haproxy" in ci
    assert shutil.which("true")  # sanity: the shell tools the cluster relies on exist at all
