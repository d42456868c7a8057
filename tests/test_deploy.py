"""The deployment files (deploy/), checked here because neither Docker nor a cluster runs in CI.

Every Kubernetes manifest is validated against the API's own schemas (kubernetes-validate ships them;
strict: unknown fields are errors) and its important settings are asserted. No JSON schema of the
Compose file format is available offline, so compose.yaml's structure is checked by hand below. The
HAProxy configuration is checked by HAProxy itself (`haproxy -c`), as written and as the local
cluster generates it. No server starts here (fast tier).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import kubernetes_validate
import pytest
import yaml
from conftest import ROOT

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


def test_app_and_redis_run_as_non_root_and_the_app_as_the_images_user():
    uid = dockerfile_user()
    for name in ("ase-app", "ase-redis"):
        ctx = pod_spec(name)["securityContext"]
        assert ctx["runAsNonRoot"] is True and ctx["runAsUser"] != 0, name
        assert container(name)["securityContext"]["allowPrivilegeEscalation"] is False, name
    assert pod_spec("ase-app")["securityContext"]["runAsUser"] == uid


def test_app_resources_follow_the_measured_memory():
    """docs/performance.md: ~150 MB at start, 420-530 MB with 30 sessions, 640 MB at the peak."""
    res = container("ase-app")["resources"]
    assert res["requests"] == {"cpu": "1", "memory": "768Mi"}
    assert res["limits"]["memory"] == "1Gi"


def test_redis_is_inside_the_cluster_only_and_bounded():
    services = [d for _, d in manifests() if d["kind"] == "Service"]
    assert all(s["spec"].get("type", "ClusterIP") == "ClusterIP" for s in services)
    assert not any("nodePort" in p for s in services for p in s["spec"]["ports"])
    redis = one("Service", "ase-redis")
    assert redis["spec"]["type"] == "ClusterIP" and redis["spec"]["ports"][0]["port"] == 6379
    args = container("ase-redis")["args"]
    opts = dict(zip(args[::2], args[1::2], strict=True))
    assert opts["--requirepass"] == "$(REDIS_PASSWORD)"
    assert opts["--maxmemory-policy"] == "allkeys-lru" and opts["--save"] == ""
    assert int(opts["--maxmemory"].removesuffix("mb")) * 2**20 < 2**20 * int(
        container("ase-redis")["resources"]["limits"]["memory"].removesuffix("Mi"))


def test_only_the_app_reaches_redis():
    policy = one("NetworkPolicy", "ase-redis-from-app-only")["spec"]
    redis_labels = one("Deployment", "ase-redis")["spec"]["template"]["metadata"]["labels"]
    app_labels = one("Deployment", "ase-app")["spec"]["template"]["metadata"]["labels"]
    assert policy["policyTypes"] == ["Ingress"]
    assert policy["podSelector"]["matchLabels"].items() <= redis_labels.items()
    (rule,) = policy["ingress"]
    (source,) = rule["from"]
    assert set(source) == {"podSelector"}
    assert source["podSelector"]["matchLabels"].items() <= app_labels.items()
    assert rule["ports"] == [{"protocol": "TCP", "port": 6379}]


def test_every_secret_a_pod_reads_exists_and_none_is_applied_with_the_folder():
    secrets = {d["metadata"]["name"]: d for _, d in manifests() if d["kind"] == "Secret"}
    envs = [env for name in ("ase-app", "ase-redis") for env in container(name).get("env", [])]
    refs = {(r["name"], r["key"]) for env in envs if (r := env.get("valueFrom", {}).get("secretKeyRef"))}
    assert refs == {("ase-redis", "password")}
    for name, key in refs:
        assert key in secrets[name].get("stringData", {}) | secrets[name].get("data", {}), (name, key)
    # `kubectl apply -f deploy/k8s/` does not descend into secret/: no password from git is applied
    assert not [d for _, d in manifests(K8S, recursive=False) if d["kind"] == "Secret"]


def test_the_app_finds_redis_by_its_service_with_the_secrets_password():
    env = [e["name"] for e in container("ase-app")["env"]]
    values = {e["name"]: e.get("value") for e in container("ase-app")["env"]}
    assert env.index("ASE_REDIS_PASSWORD") < env.index("ASE_REDIS_URL")  # $(VAR) expands earlier ones only
    assert values["ASE_REDIS_URL"] == "redis://:$(ASE_REDIS_PASSWORD)@ase-redis:6379/0"


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
    assert set(services) == {*apps, "balancer", "redis"} and len(apps) >= 2
    # each replica is a server line of the balancer's configuration, under the same name and cookie
    servers = re.findall(r"^\s+server (\S+) (\S+):8501 .*cookie (\S+)", SOURCE.read_text(),
                         flags=re.MULTILINE)
    assert [(n, h, c) for n, h, c in servers] == [(a, a, a) for a in apps]
    balancer = services["balancer"]
    assert "./haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro" in balancer["volumes"]
    assert balancer["ports"] == ["8080:8080"] and "bind :8080" in SOURCE.read_text()
    for app in apps:
        s = services[app]
        assert s["environment"]["ASE_REDIS_URL"] == \
            "redis://:${ASE_REDIS_PASSWORD:?set ASE_REDIS_PASSWORD}@redis:6379/0"
        assert HEALTH in " ".join(s["healthcheck"]["test"])
        assert s["depends_on"]["redis"]["condition"] == "service_healthy"
        assert "ports" not in s  # only the balancer is published
        assert s["build"] == {"context": "..", "dockerfile": "deploy/Dockerfile"}
    assert all(balancer["depends_on"][a]["condition"] == "service_healthy" for a in apps)
    assert "/healthz" in " ".join(balancer["healthcheck"]["test"])
    assert "monitor-uri /healthz" in SOURCE.read_text()


def test_compose_redis_has_a_required_password_and_no_published_port():
    doc = compose()
    redis = doc["services"]["redis"]
    assert "ports" not in redis and "expose" not in redis
    cmd = redis["command"]
    opts = dict(zip(cmd[1::2], cmd[2::2], strict=True))
    assert cmd[0] == "redis-server" and opts["--requirepass"].startswith("${ASE_REDIS_PASSWORD:?")
    assert (opts["--maxmemory-policy"], opts["--save"], opts["--appendonly"]) == ("allkeys-lru", "", "no")
    assert "ping" in " ".join(redis["healthcheck"]["test"]) and redis["environment"]["REDISCLI_AUTH"]
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
