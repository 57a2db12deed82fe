#!/usr/bin/python3
"""`make bench`: Coffer's performance figures side by side with its peers, as one Markdown table.

Run by the Makefile under Resources/scripts/with-kinto.sh (COFFER_TEST_KINTO_URL names the server)
with Debian's python3 (for python3-pykeepass). BENCH_SMALL=1: 1,000/10,000 items, fewer runs.
BENCH_ONLY=files: only the file rows (a 16 MiB attachment up and down, beside the raw client), without
building the item vaults and KDBX files the other rows need (`make bench BENCH_ONLY=files`).
BENCH_ONLY=share: only the shared-vault rows (revoking a member of a 10,000-item shared vault, a
person's idle syncs of two vaults).
BENCH_ONLY=agent: only the agent's rows (issue 33: `search` and `show` through it, the first search after
its own write, its RSS), with only the 100,000-item vault they need (10,000 with BENCH_SMALL=1).

Peers, measured in the same run on the same data:
- keepassxc-cli (Debian keepassxc) on a KDBX 4 file with Argon2id m=64 MiB, t=3, p=1 (made empty with
  pykeepass, filled by `keepassxc-cli import` of a KeePass XML file and `keepassxc-cli merge`);
- a raw Python HTTP client doing the engine's Kinto work (batches of 25 creates, paged listing,
  conditional GETs; for a file, one PUT and one GET per 512 KiB chunk): the server's own limit.

Screen figures come from the real binary on a pseudo-terminal, with COFFER_BENCH_TRACE=FILE
(Sources/coffer/Output/BenchTrace.swift) writing when frames reach the terminal.
"""

import base64
import hashlib
import http.client
import json
import os
import platform
import pty
import random
import re
import select
import shutil
import signal
import socket
import sqlite3
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import fcntl
import threading
import time
import urllib.parse
import uuid
from xml.sax.saxutils import escape

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# COFFER_BENCH_BIN: another build to compare, run alternately with this one (before and after a change).
BIN = os.environ.get("COFFER_BENCH_BIN") or os.path.join(ROOT, ".build", "release", "coffer")
RECONCILE_BIN = os.path.join(ROOT, ".build", "release", "CofferBench")  # Sources/CofferBench
OUT = os.path.join(ROOT, ".build", "bench.md")
WORK = os.path.join(ROOT, ".build", "bench-work")
SMALL = os.environ.get("BENCH_SMALL", "") not in ("", "0")
N1, N2 = (1_000, 10_000) if SMALL else (10_000, 100_000)
RUNS = 3 if SMALL else 5
RUNS_BIG_PEER = 2 if SMALL else 3      # keepassxc-cli on N2 items takes ~17 s a run
SYNC_N = N1
QUERY = "needle"
PASSPHRASE = "correct horse battery staple bench"
ACCOUNT_PASSWORD = "bench-account-password"
DOWNLOAD_RUNS = 3
KDF_M, KDF_T = 64, 3
ONLY = os.environ.get("BENCH_ONLY", "")
FILE_SIZE = 16 << 20                 # Attachment.sizeLimit: the largest file an item keeps
FILE_FIELDS = "attachment,index,count,deleted"   # what AttachmentStep.fetch lists (no data)


def log(message):
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Data: the same N items as Coffer JSON and KeePass XML.

WORDS = ("alpha bravo cobalt delta ember falcon garnet harbor indigo jasper kestrel lumen meadow "
         "nimbus orchid pepper quartz raven sable tundra umber violet willow xenon yarrow zephyr "
         "amber birch cedar dune").split()
TAGS = "work home bank social shop travel mail dev".split()
ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!@#$%^&*-_"


def make_items(n):
    rng = random.Random(20240607)
    items = []
    for i in range(n):
        title = f"{rng.choice(WORDS).capitalize()} {rng.choice(WORDS)} {i}"
        if i % 1000 == 7:
            title += f" {QUERY}"          # 0.1 % of the items match the query
        items.append({
            "uuid": uuid.UUID(int=rng.getrandbits(128), version=4),
            "title": title,
            "username": f"{rng.choice(WORDS)}.{i}@example.com",
            "password": "".join(rng.choice(ALPHABET) for _ in range(20)),
            "notes": " ".join(rng.choice(WORDS) for _ in range(12)),
            "origins": [f"https://{rng.choice(WORDS)}{i % 997}.example.com/login"],
            "tags": rng.sample(TAGS, rng.randint(0, 2)),
        })
    return items


def write_coffer_json(items, path):
    with open(path, "w") as f:
        json.dump([{k: it[k] for k in ("title", "username", "password", "notes", "origins", "tags")}
                   for it in items], f)


def write_keepass_xml(items, path, root_uuid):
    b64 = lambda u: base64.b64encode(u.bytes).decode()
    with open(path, "w", encoding="utf-8") as f:
        f.write('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<KeePassFile><Meta>'
                "<Generator>coffer-bench</Generator><DatabaseName>bench</DatabaseName></Meta><Root>"
                f"<Group><UUID>{b64(root_uuid)}</UUID><Name>Root</Name>\n")
        for it in items:
            def field(key, value, protect=False):
                attr = ' ProtectInMemory="True"' if protect else ""
                return f"<String><Key>{key}</Key><Value{attr}>{escape(value)}</Value></String>"
            f.write(f"<Entry><UUID>{b64(it['uuid'])}</UUID><Tags>{escape(';'.join(it['tags']))}</Tags>"
                    + field("Title", it["title"]) + field("UserName", it["username"])
                    + field("Password", it["password"], True) + field("URL", it["origins"][0])
                    + field("Notes", it["notes"]) + "</Entry>\n")
        f.write("</Group></Root></KeePassFile>\n")


# ---------------------------------------------------------------------------------------------
# Running processes: wall time and peak RSS of exactly that child (wait4).

def run(cmd, stdin_text=None, env=None, check=True, quiet=True):
    """Runs cmd; returns (seconds, ru_maxrss in MiB — not used: it counts the forked driver —, exit status, stdout)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, tempfile.TemporaryFile() as inp:
        if stdin_text is not None:
            inp.write(stdin_text.encode())
            inp.seek(0)
        full_env = dict(os.environ, **(env or {}))
        start = time.perf_counter()
        process = subprocess.Popen(cmd, stdin=inp if stdin_text is not None else subprocess.DEVNULL,
                                   stdout=out, stderr=err, env=full_env)
        _, status, usage = os.wait4(process.pid, 0)
        elapsed = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        text, errors = out.read().decode(errors="replace"), err.read().decode(errors="replace")
        if check and process.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} exited {process.returncode}: {errors.strip()[-2000:]}")
        return elapsed, usage.ru_maxrss / 1024, process.returncode, text


def peak_rss(cmd, **kwargs):
    """Peak RSS in MiB of one run, from /usr/bin/time: wait4's ru_maxrss would count the memory of the
    forked Python driver before exec."""
    with tempfile.NamedTemporaryFile() as report:
        run(["/usr/bin/time", "-f", "%M", "-o", report.name, *cmd], **kwargs)
        return int(open(report.name).read().split()[-1]) / 1024


def median_run(cmd, runs, memory=False, **kwargs):
    """(median seconds, peak RSS MiB or None, stdout of the first run)."""
    results = [run(cmd, **kwargs) for _ in range(runs)]
    rss = peak_rss(cmd, **kwargs) if memory else None
    return statistics.median(r[0] for r in results), rss, results[0][3]


# ---------------------------------------------------------------------------------------------
# Building the vaults.

def coffer(*args):
    return [BIN, *args]


def make_coffer_vault(path, json_path, passfile):
    run(coffer("init", "--vault", path, "--passphrase-file", passfile,
               "--kdf-memory", str(KDF_M), "--kdf-iterations", str(KDF_T)))
    if json_path:
        seconds, _, _, _ = run(coffer("import", "--vault", path, "--passphrase-file", passfile,
                                      "--format", "json", json_path))
        log(f"coffer import {os.path.basename(json_path)}: {seconds:.2f} s")


def make_empty_kdbx(path):
    from pykeepass import create_database
    from pykeepass.kdbx_parsing.kdbx4 import kdf_uuids
    kp = create_database(path, password=PASSPHRASE)
    params = kp.kdbx.header.value.dynamic_header.kdf_parameters.data.dict
    params["$UUID"].value = kdf_uuids["argon2id"]
    params["M"].value = KDF_M * 1024 * 1024
    params["I"].value = KDF_T
    params["P"].value = 1
    del kp.kdbx.header["data"]          # rebuild the header from the edited values
    kp.save()
    return kp.root_group.uuid


def make_kdbx(path, empty, xml_path):
    shutil.copy(empty, path)
    scratch = path + ".import.kdbx"
    if os.path.exists(scratch):
        os.remove(scratch)
    t0 = time.perf_counter()
    run(["keepassxc-cli", "import", "-q", "-p", xml_path, scratch], stdin_text=f"{PASSPHRASE}\n{PASSPHRASE}\n")
    run(["keepassxc-cli", "merge", "-q", "-s", path, scratch], stdin_text=f"{PASSPHRASE}\n")
    os.remove(scratch)
    _, _, _, info = run(["keepassxc-cli", "db-info", "-q", path], stdin_text=f"{PASSPHRASE}\n")
    entries = next((l.split(":")[1].strip() for l in info.splitlines() if l.startswith("Number of entries")), "?")
    kdf = next((l for l in info.splitlines() if l.startswith("KDF")), "?")
    log(f"KDBX {os.path.basename(path)}: {entries} entries, {kdf}, built in {time.perf_counter() - t0:.1f} s")
    return int(entries) if entries.isdigit() else None


# ---------------------------------------------------------------------------------------------
# The screen on a pseudo-terminal.

class ScreenSession:
    def __init__(self, vault, trace):
        self.trace = trace
        open(trace, "w").close()
        env = dict(os.environ, COFFER_BENCH_TRACE=trace, TERM="xterm-256color", LANG="C.UTF-8")
        env.pop("COFFER_LOG", None)
        self.started = time.time() * 1000
        pid, fd = pty.fork()
        if pid == 0:
            os.execve(BIN, [BIN, "--vault", vault], env)
        self.pid, self.fd = pid, fd
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
        self.alive = True
        self.reader = threading.Thread(target=self._drain, daemon=True)
        self.reader.start()

    def _drain(self):
        while self.alive:
            try:
                ready, _, _ = select.select([self.fd], [], [], 0.1)
                if ready and not os.read(self.fd, 65536):
                    break
            except OSError:
                break

    def lines(self):
        with open(self.trace) as f:
            return [l.split() for l in f if l.strip()]

    def wait_for(self, name, count=1, timeout=120):
        deadline = time.time() + timeout
        while time.time() < deadline:
            found = [l for l in self.lines() if l[0] == name]
            if len(found) >= count:
                return found
            time.sleep(0.005)
        raise RuntimeError(f"the screen wrote no '{name}' line (x{count}) within {timeout} s")

    def send(self, text):
        os.write(self.fd, text.encode())

    def close(self):
        try:
            os.kill(self.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        for _ in range(100):
            done, _ = os.waitpid(self.pid, os.WNOHANG)
            if done:
                break
            time.sleep(0.02)
        else:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        self.alive = False
        os.close(self.fd)


def screen_figures(vault, runs):
    """Start → locked screen over `runs` sessions; unlock and search-as-you-type in the first one."""
    starts, unlock, all_items, keys = [], None, None, []
    trace = os.path.join(WORK, "trace.txt")
    for attempt in range(runs):
        session = ScreenSession(vault, trace)
        try:
            first = session.wait_for("first-frame", timeout=30)
            starts.append(float(first[0][1]) - session.started)
            if attempt == 0:
                session.send(PASSPHRASE + "\r")
                unlock = float(session.wait_for("unlock", timeout=1200)[0][1])
                # The list fills in behind the first page: type once every item is open.
                all_items = float(session.wait_for("all-items", timeout=1200)[0][1])
                # Search as you type: '/', then the query letter by letter and back again.
                before = len([l for l in session.lines() if l[0] == "key"])
                sequence = ["/"] + ([*QUERY] + ["\x7f"] * len(QUERY)) * (1 if SMALL else 2)
                for i, key in enumerate(sequence, 1):
                    session.send(key)
                    session.wait_for("key", before + i, timeout=600)
                    time.sleep(0.02)
                keys = [float(l[1]) for l in session.lines() if l[0] == "key"][before + 1:]
        finally:
            session.close()
    return statistics.median(starts), unlock, all_items, keys


def idle_cpu(vault, seconds):
    """Percent of one core the unlocked screen uses while nothing happens: utime + stime from
    /proc/PID/stat over `seconds`, after the unlock's own work has settled."""
    session = ScreenSession(vault, os.path.join(WORK, "idle-trace.txt"))
    try:
        session.wait_for("first-frame", timeout=30)
        session.send(PASSPHRASE + "\r")
        session.wait_for("all-items", timeout=1200)
        time.sleep(3)
        ticks = os.sysconf("SC_CLK_TCK")

        def cpu():
            with open(f"/proc/{session.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / ticks   # utime, stime (fields 14 and 15)

        before, t0 = cpu(), time.monotonic()
        time.sleep(seconds)
        return (cpu() - before) / (time.monotonic() - t0) * 100
    finally:
        session.close()


def agent_rss(env, vault):
    """The RSS in MiB of the agent holding `vault` (its pid from `coffer status --json`)."""
    status = json.loads(run(coffer("status", "--vault", vault, "--json"), env=env)[3])
    with open(f"/proc/{status['agent']['pid']}/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("VmRSS:")) / 1024


def agent_figures(vault, passfile, runs, title):
    """Whole-process commands through an unlocked agent (architecture §12, issue 33): `search` (median seconds,
    peak RSS MiB of the client), the agent's RSS then, `show TITLE --field password`, and the first `search`
    after the agent's own write (`edit TITLE --notes` through it; median of 3). One search first builds the
    agent's index; then the runs."""
    env = {"XDG_RUNTIME_DIR": os.path.join(WORK, "run")}
    os.makedirs(env["XDG_RUNTIME_DIR"], mode=0o700, exist_ok=True)
    run(coffer("unlock", "--vault", vault, "--passphrase-file", passfile, "--sync-every", "0"), env=env)
    try:
        search = coffer("search", "--vault", vault, QUERY)
        run(search, env=env)
        seconds, rss, _ = median_run(search, runs, memory=True, env=env)
        figures = {"search": seconds, "client_rss": rss, "agent_rss": agent_rss(env, vault)}
        show = coffer("show", "--vault", vault, title, "--field", "password")
        figures["show"] = median_run(show, runs, env=env)[0]
        times = []
        for attempt in range(3):
            run(coffer("edit", "--vault", vault, title, "--notes", f"changed through the agent {attempt}"), env=env)
            times.append(run(search, env=env)[0])
        figures["after_write"] = statistics.median(times)
        figures["agent_rss_after"] = agent_rss(env, vault)
        return figures
    finally:
        run(coffer("lock", "--vault", vault), env=env)


def agent_rows(row, n, agent, peer_search=None):
    a = agent["search"]
    row(f"`search` on {n:,} items through an unlocked agent (`coffer unlock`), whole process",
        ms(a), ms(peer_search) if peer_search else "—", f"{a / peer_search:.4f}×" if peer_search else "—",
        "≤ 12 ms", a <= 0.012)
    row(f"`show NAME --field password` on {n:,} items through the agent, whole process", ms(agent["show"]), "—", "—",
        "≤ 12 ms", agent["show"] <= 0.012)
    row(f"the first `search` through the agent after its own write (`edit NAME --notes`), {n:,} items",
        ms(agent["after_write"]), "—", "—", "≤ 30 ms", agent["after_write"] <= 0.030)
    row(f"the agent's RSS holding {n:,} items (after a search; after 3 edits and searches)",
        f"{agent['agent_rss']:,.0f} / {agent['agent_rss_after']:,.0f} MiB", "—", "—", "≤ 100 MiB",
        max(agent["agent_rss"], agent["agent_rss_after"]) <= 100)


def agent_only(passfile, runs):
    """BENCH_ONLY=agent: the N2-item vault alone, then the agent's rows."""
    items = make_items(N2)
    json_path, vault = os.path.join(WORK, f"items-{N2}.json"), os.path.join(WORK, f"coffer-{N2}.db")
    write_coffer_json(items, json_path)
    make_coffer_vault(vault, json_path, passfile)
    agent = agent_figures(vault, passfile, runs, items[N2 // 2]["title"])
    log(f"agent at {N2:,}: {agent}")
    return agent


def ssh_sign_figures(passfile, runs):
    """`ssh-keygen -Y sign` with one Ed25519 key through Coffer's agent (issue 32) and through OpenSSH's
    own ssh-agent holding the same key: (median seconds Coffer, median seconds ssh-agent)."""
    work = os.path.join(WORK, "ssh")
    os.makedirs(os.path.join(work, "run"), mode=0o700, exist_ok=True)
    env = {"XDG_RUNTIME_DIR": os.path.join(work, "run")}
    vault = os.path.join(work, "vault.db")
    run(coffer("init", "--vault", vault, "--passphrase-file", passfile, "--kdf-memory", str(KDF_M),
               "--kdf-iterations", str(KDF_T)))
    public = run(coffer("ssh", "generate", "--vault", vault, "--passphrase-file", passfile, "bench"))[3].strip()
    private = os.path.join(work, "key")
    with open(private, "w") as f:
        f.write(run(coffer("show", "--vault", vault, "--passphrase-file", passfile, "bench", "--field", "private-key"))[3])
    os.chmod(private, 0o600)
    with open(private + ".pub", "w") as f:
        f.write(public + "\n")
    message = os.path.join(work, "message")
    with open(message, "w") as f:
        f.write("a message to sign\n")
    sign = ["ssh-keygen", "-Y", "sign", "-f", private + ".pub", "-n", "file", message]

    def timed(socket):
        times = []
        for _ in range(runs * 4):
            if os.path.exists(message + ".sig"):
                os.remove(message + ".sig")
            times.append(run(sign, env={"SSH_AUTH_SOCK": socket})[0])
        return statistics.median(times)

    run(coffer("unlock", "--vault", vault, "--passphrase-file", passfile, "--sync-every", "0"), env=env)
    try:
        socket = run(coffer("ssh", "socket", "--vault", vault), env=env)[3].strip()
        mine = timed(socket)
    finally:
        run(coffer("lock", "--vault", vault), env=env)
    peer_socket = os.path.join(work, "ssh-agent.sock")
    agent = subprocess.Popen(["ssh-agent", "-D", "-a", peer_socket], stdout=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if os.path.exists(peer_socket):
                break
            time.sleep(0.05)
        run(["ssh-add", private], env={"SSH_AUTH_SOCK": peer_socket})
        peer = timed(peer_socket)
    finally:
        agent.terminate()
        agent.wait()
    return mine, peer


def ssh_rows(row, figures):
    mine, peer = figures
    row("`ssh-keygen -Y sign` (Ed25519) through Coffer's agent / through OpenSSH's `ssh-agent` holding the same key, "
        "whole process", ms(mine), ms(peer), f"{mine / peer:.2f}×", "≤ 1.2×", mine / peer <= 1.2)


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))]


# ---------------------------------------------------------------------------------------------
# Kinto: the raw client.

class Raw:
    def __init__(self, base, user):
        parts = urllib.parse.urlsplit(base)
        self.host, self.port, self.prefix = parts.hostname, parts.port, parts.path.rstrip("/")
        self.auth = "Basic " + base64.b64encode(f"{user}:{ACCOUNT_PASSWORD}".encode()).decode()
        self.user = user
        self.connection = http.client.HTTPConnection(self.host, self.port)

    def request(self, method, path, body=None, headers=None, auth=True):
        all_headers = {"Content-Type": "application/json", **(headers or {})}
        if auth:
            all_headers["Authorization"] = self.auth
        url = path if path.startswith("http") else self.prefix + path
        if url.startswith("http"):
            url = urllib.parse.urlsplit(url)
            url = url.path + ("?" + url.query if url.query else "")
        self.connection.request(method, url, body=json.dumps(body) if body is not None else None, headers=all_headers)
        response = self.connection.getresponse()
        data = response.read()
        return response.status, response.headers, (json.loads(data) if data else None)

    def signup(self):
        status, _, _ = self.request("PUT", f"/accounts/{self.user}", {"data": {"password": ACCOUNT_PASSWORD}}, auth=False)
        assert status in (200, 201), status

    def upload(self, collection, records):
        for start in range(0, len(records), 25):
            requests = [{"method": "PUT", "path": f"/buckets/default/collections/{collection}/records/{r['id']}",
                         "headers": {"If-None-Match": "*"},
                         "body": {"data": {k: v for k, v in r.items() if k != "id"}}} for r in records[start:start + 25]]
            status, _, body = self.request("POST", "/batch", {"requests": requests})
            assert status == 200 and all(r["status"] == 201 for r in body["responses"]), (status, body)

    def download(self, collection):
        records, path, etag = [], f"/buckets/default/collections/{collection}/records", None
        while path:
            status, headers, body = self.request("GET", path)
            assert status == 200, status
            etag = etag or headers.get("ETag")
            records += body["data"]
            path = headers.get("Next-Page")
        return records, etag

    def idle_paths(self, etags, device):
        """The three conditional GETs of an idle `coffer sync` (architecture §4), by the account's
        bucket id as Coffer asks once its first sync learned it: [(path, etag)]."""
        _, _, root = self.request("GET", "/")
        bucket = root["user"]["bucket"]
        since = lambda etag: etag.strip(chr(34))
        return [(f"/buckets/{bucket}/collections/items/records?_sort=last_modified&_since={since(etags[0])}", etags[0]),
                (f"/buckets/{bucket}/collections/keystores/records?_sort=last_modified&_since={since(etags[1])}", etags[1]),
                (f"/buckets/{bucket}/collections/messages/records?recipient={device}", etags[2])]

    def not_modified(self, path, etag):
        status, _, _ = self.request("GET", path, headers={"If-None-Match": etag})
        return status


def raw_store(path, collections):
    """What a minimal client stores of a first download: each record's id, timestamp and JSON
    text, in one transaction of a WAL-mode SQLite file (coffer's `join` keeps the same three)."""
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("CREATE TABLE records (collection TEXT, id TEXT, last_modified INTEGER, record TEXT, "
               "PRIMARY KEY (collection, id))")
    with db:
        for collection, records in collections.items():
            db.executemany("INSERT INTO records VALUES (?, ?, ?, ?)",
                           ((collection, r["id"], r["last_modified"], json.dumps(r)) for r in records))
    db.close()


def pending_records(vault):
    """The records `coffer account signup` is about to upload, as Kinto bodies."""
    db = sqlite3.connect(vault)
    rows = db.execute("SELECT collection, record FROM pending WHERE source = 'local' ORDER BY key").fetchall()
    db.close()
    out = {"items": [], "keystores": []}
    for collection, record in rows:
        body = json.loads(record)
        body.pop("last_modified", None)
        out[collection].append(body)
    return out


def start_proxy(upstream):
    process = subprocess.Popen([sys.executable, os.path.join(ROOT, "Resources/scripts/fault-proxy.py"),
                                "--upstream", upstream], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    port = int(process.stdout.readline().strip())
    return process, port


def proxy_log(port):
    connection = http.client.HTTPConnection("127.0.0.1", port)
    connection.request("GET", "/__fault__")
    return json.loads(connection.getresponse().read())["log"]


def sync_figures(kinto, vault_a, passfile, pwfile, runs):
    tag = str(int(time.time()))
    user_a, user_raw = f"bench-a-{tag}", f"bench-raw-{tag}"
    records = pending_records(vault_a)
    n = len(records["items"])
    figures = {"n": n}

    log(f"first upload of {n} items: coffer account signup")
    seconds, _, _, _ = run(coffer("account", "signup", "--vault", vault_a, "--server", kinto, "--user", user_a,
                                  "--password-file", pwfile))
    figures["upload_coffer"] = n / seconds
    log(f"first upload of {n} items: raw client")
    raw = Raw(kinto, user_raw)
    t0 = time.perf_counter()
    raw.signup()
    raw.request("GET", "/")
    raw.request("GET", "/buckets/default/collections/keystores/records")
    raw.upload("keystores", records["keystores"])
    raw.upload("items", records["items"])
    figures["upload_raw"] = n / (time.perf_counter() - t0)

    # Both downloads alternate, DOWNLOAD_RUNS times each (a new device each time), medians kept:
    # one run of each swung with the server's state (the first listing after the upload is slower).
    vault_b = os.path.join(WORK, "device-b.db")
    store = os.path.join(WORK, "raw-download.db")
    coffer_times, raw_times = [], []
    for attempt in range(DOWNLOAD_RUNS):
        log(f"first download of {n} items: coffer join ({attempt + 1}/{DOWNLOAD_RUNS})")
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(vault_b + suffix):
                os.remove(vault_b + suffix)
        seconds, _, _, _ = run(coffer("join", "--vault", vault_b, "--server", kinto, "--user", user_a,
                                      "--password-file", pwfile, "--passphrase-file", passfile))
        coffer_times.append(seconds)
        log(f"first download of {n} items: raw client, storing the rows in SQLite ({attempt + 1}/{DOWNLOAD_RUNS})")
        raw = Raw(kinto, user_a)
        if os.path.exists(store):
            os.remove(store)
        t0 = time.perf_counter()
        raw.request("GET", "/")
        keystores, keystore_etag = raw.download("keystores")
        items, items_etag = raw.download("items")
        _, messages_etag = raw.download("messages")
        raw_store(store, {"keystores": keystores, "items": items})
        assert len(items) == n, (len(items), n)
        raw_times.append(time.perf_counter() - t0)
    figures["download_coffer"] = n / statistics.median(coffer_times)
    figures["download_raw"] = n / statistics.median(raw_times)

    log("sync with nothing to do")
    run(coffer("sync", "--vault", vault_b))  # the first learns the account's bucket id (§4)
    figures["noop_coffer"], _, _ = median_run(coffer("sync", "--vault", vault_b), runs)
    # The same requests as that sync: its markers, its device.
    db = sqlite3.connect(vault_b)
    device = db.execute("SELECT value FROM meta WHERE key = 'device_id'").fetchone()[0]
    markers = dict(db.execute("SELECT collection, etag FROM markers").fetchall())
    db.close()
    idle = Raw(kinto, user_a).idle_paths(tuple('"%s"' % markers[c] for c in ("items", "keystores", "messages")), device)
    times = []
    for _ in range(runs):
        raw = Raw(kinto, user_a)
        t0 = time.perf_counter()
        # The three listings an idle sync asks (architecture §9: items, keystores, this device's messages).
        statuses = [raw.not_modified(path, etag) for path, etag in idle]
        times.append(time.perf_counter() - t0)
        assert statuses == [304, 304, 304], statuses
    figures["noop_raw"] = statistics.median(times)
    # The floor for any whole process that syncs through libcurl: curl(1) itself, starting, loading
    # libcurl and asking the same three conditional GETs (one process, one after the other).
    auth = f"{user_a}:{ACCOUNT_PASSWORD}"
    command = ["curl"]
    for path, etag in idle:
        command += (["--next"] if len(command) > 1 else []) + ["-s", "-o", "/dev/null", "-u", auth,
                                                               "-H", f"If-None-Match: {etag}", kinto + path]
    figures["noop_curl"], _, _ = median_run(command, runs)

    # Requests of one no-op sync, counted by the loopback proxy in front of the same server.
    upstream = kinto[: -len("/v1")] if kinto.endswith("/v1") else kinto
    proxy, port = start_proxy(upstream)
    try:
        run(coffer("account", "login", "--vault", vault_b, "--server", f"http://127.0.0.1:{port}/v1",
                   "--user", user_a, "--password-file", pwfile))
        run(coffer("sync", "--vault", vault_b))  # learns the account's bucket id again after the login (§4)
        before = len(proxy_log(port))
        run(coffer("sync", "--vault", vault_b))
        seen = proxy_log(port)[before:]
    finally:
        proxy.terminate()
        proxy.wait()
    figures["noop_requests"] = seen
    return figures


# ---------------------------------------------------------------------------------------------
# Files: a 16 MiB attachment up and down (AttachmentStep), beside the raw client moving the same chunks.

CHUNKS_PATH = "/buckets/default/collections/attachments/records"


def raw_put_file(raw, file_id, chunks):
    """Coffer's upload of one file: one PUT per sealed chunk, written once (`If-None-Match: *`), the
    bytes as base64 in `{attachment, index, count, data}`."""
    for index, chunk in enumerate(chunks):
        status, _, body = raw.request("PUT", f"{CHUNKS_PATH}/{file_id}-{index:04d}", {"data": {
            "attachment": file_id, "index": str(index), "count": str(len(chunks)),
            "data": base64.b64encode(chunk).decode()}}, headers={"If-None-Match": "*"})
        assert status == 201, (status, body)


def raw_get_files(raw, marker, db):
    """Coffer's download: the chunks changed since the marker listed without their data, then one GET
    each; each file's bytes joined and stored as one row, in one transaction of a WAL-mode SQLite file."""
    status, _, body = raw.request("GET", f"{CHUNKS_PATH}?_sort=last_modified&_fields={FILE_FIELDS}&_since={marker}",
                                  headers={"If-None-Match": f'"{marker}"'})
    assert status == 200, status
    counts = {r["attachment"]: int(r["count"]) for r in body["data"] if not r.get("deleted")}
    files = {}
    for file_id, count in counts.items():
        parts = []
        for index in range(count):
            status, _, record = raw.request("GET", f"{CHUNKS_PATH}/{file_id}-{index:04d}")
            assert status == 200, status
            parts.append(base64.b64decode(record["data"]["data"]))
        files[file_id] = b"".join(parts)
    with db:
        db.executemany("INSERT INTO files VALUES (?, ?)", files.items())
    return files


def file_figures(kinto, passfile, pwfile, runs):
    """A 16 MiB file sent by device A's `coffer sync` and received by device B's, whole processes, with a
    no-op sync of the same vault measured in each run (to take off); the raw client moves the same
    sealed chunks for an account of its own. A fresh random file each run, so each moves 16 MiB."""
    tag = str(int(time.time()))
    user_a, user_raw = f"bench-file-a-{tag}", f"bench-file-raw-{tag}"
    vault_a, vault_b = os.path.join(WORK, "file-a.db"), os.path.join(WORK, "file-b.db")
    source, copy, store = (os.path.join(WORK, name) for name in ("file.bin", "file-out.bin", "raw-files.db"))
    keys = ["--passphrase-file", passfile]
    make_coffer_vault(vault_a, None, passfile)
    run(coffer("add", "--vault", vault_a, *keys, "--title", "Scans", "--username", "bench@example.com"))
    run(coffer("account", "signup", "--vault", vault_a, "--server", kinto, "--user", user_a, "--password-file", pwfile))
    # B joins before any file is attached: each timed sync of B brings one file (and the item naming it).
    run(coffer("join", "--vault", vault_b, "--server", kinto, "--user", user_a, "--password-file", pwfile, *keys))
    # Each device learns of the other's registration once, so the no-op syncs below are no-ops.
    for vault in (vault_a, vault_b, vault_a):
        run(coffer("sync", "--vault", vault))
    Raw(kinto, user_raw).signup()
    figures = {key: [] for key in ("noop_a", "upload", "noop_b", "download", "raw_upload", "raw_download")}
    for attempt in range(runs):
        log(f"a 16 MiB file up and down: coffer and the raw client ({attempt + 1}/{runs})")
        data = os.urandom(FILE_SIZE)
        with open(source, "wb") as f:
            f.write(data)
        # Coffer: the no-op syncs in the state the timed ones start from (nothing owed either way).
        figures["noop_a"].append(run(coffer("sync", "--vault", vault_a))[0])
        figures["noop_b"].append(run(coffer("sync", "--vault", vault_b))[0])
        run(coffer("attach", "--vault", vault_a, *keys, "Scans", source))
        figures["upload"].append(run(coffer("sync", "--vault", vault_a))[0])
        figures["download"].append(run(coffer("sync", "--vault", vault_b))[0])
        if os.path.exists(copy):
            os.remove(copy)
        run(coffer("attachment", "--vault", vault_b, *keys, "Scans", "file.bin", "--output", copy))
        with open(copy, "rb") as f:
            received = hashlib.sha256(f.read()).hexdigest()
        if received != hashlib.sha256(data).hexdigest():
            raise RuntimeError(f"device B's copy of the 16 MiB file differs from device A's (SHA-256 {received})")

        # The raw client: the sealed chunks coffer sent (read back from A's account, untimed), for its own account.
        file_id = json.loads(run(coffer("attachments", "--vault", vault_a, *keys, "Scans", "--json"))[3])[0]["id"]
        listed, _ = Raw(kinto, user_a).download("attachments")
        sent = sorted((r for r in listed if r.get("attachment") == file_id), key=lambda r: int(r["index"]))
        chunks = [base64.b64decode(r["data"]) for r in sent]
        assert sent and len(chunks) == int(sent[0]["count"]), (file_id, len(chunks))
        raw = Raw(kinto, user_raw)
        _, headers, _ = raw.request("GET", f"{CHUNKS_PATH}?_limit=1&_fields=id")
        marker = headers["ETag"].strip('"')
        raw_id = str(uuid.uuid4())
        raw = Raw(kinto, user_raw)            # a new connection for each, as a new process opens
        t0 = time.perf_counter()
        raw_put_file(raw, raw_id, chunks)
        figures["raw_upload"].append(time.perf_counter() - t0)
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(store + suffix):
                os.remove(store + suffix)
        db = sqlite3.connect(store)
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("CREATE TABLE files (id TEXT PRIMARY KEY, sealed BLOB)")
        raw = Raw(kinto, user_raw)
        t0 = time.perf_counter()
        got = raw_get_files(raw, marker, db)
        figures["raw_download"].append(time.perf_counter() - t0)
        db.close()
        assert got == {raw_id: b"".join(chunks)}, "the raw client's download differs from its upload"

        # Untimed: the file goes from both devices and the server, so the next run moves a new one. B's
        # sync is unlocked: a locked one keeps a file whose chunks went as `loose` (16 MiB more a run).
        run(coffer("detach", "--vault", vault_a, *keys, "Scans", "file.bin"))
        run(coffer("sync", "--vault", vault_a))
        run(coffer("sync", "--vault", vault_b, "--unlock", *keys))
        for index in range(len(chunks)):
            status, _, _ = raw.request("DELETE", f"{CHUNKS_PATH}/{raw_id}-{index:04d}")
            assert status == 200, status
    medians = {key: statistics.median(times) for key, times in figures.items()}
    log("16 MiB file, medians: " + ", ".join(f"{key} {seconds * 1000:,.0f} ms" for key, seconds in medians.items()))
    return dict(medians, chunks=len(chunks), sealed=sum(map(len, chunks)))


def file_rows(row, files):
    """The two file rows: MiB/s of the file (16 MiB), coffer's net of its no-op sync."""
    mib, n = FILE_SIZE / (1 << 20), files["chunks"]
    for verb, timed, noop, raw, how in (
            ("upload", "upload", "noop_a", "raw_upload", f"{n} PUTs"),
            ("download", "download", "noop_b", "raw_download",
             f"a listing and {n} GETs, base64 decoded, stored in SQLite in one transaction")):
        whole, idle = files[timed], files[noop]
        c, r = mib / max(whole - idle, 1e-3), mib / files[raw]
        checked = "; the copy checked by SHA-256" if verb == "download" else ""
        row(f"{verb} a 16 MiB file ({n} chunks; `sync`, whole process {ms(whole)}, no-op `sync` {ms(idle)} taken off"
            f"{checked})", f"{c:,.1f} MiB/s", f"{r:,.1f} MiB/s (raw client: {how})", f"{c / r:.2f}×", "≥ 0.8×",
            c / r >= 0.8)


# ---------------------------------------------------------------------------------------------
# Shared vaults (issue 31): revoking a member of a vault of SHARE_ITEMS items, and the idle sync of a
# person with a personal and a shared vault.

SHARE_ITEMS = 1_000 if SMALL else 10_000


class Talking:
    """A coffer process whose questions are answered on stdin: stderr is read on a thread."""

    def __init__(self, cmd):
        self.process = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.err = b""
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for chunk in iter(lambda: self.process.stderr.read1(4096), b""):
            self.err += chunk

    def wait_for(self, text, timeout=120):
        deadline = time.time() + timeout
        while text.encode() not in self.err:
            if time.time() > deadline or self.process.poll() is not None and text.encode() not in self.err:
                raise RuntimeError(f"never printed {text!r}: {self.err.decode(errors='replace')[-1000:]}")
            time.sleep(0.05)
        return self.err.decode(errors="replace")

    def answer(self, line):
        self.process.stdin.write((line + "\n").encode())
        self.process.stdin.close()

    def finish(self):
        status = self.process.wait(timeout=300)
        self.reader.join(timeout=5)
        if status != 0:
            raise RuntimeError(f"exited {status}: {self.err.decode(errors='replace')[-1000:]}")


def share_person(kinto, name, tag, passfile, pwfile):
    """A personal vault with an account of its own on the server: (vault path, account)."""
    vault, user = os.path.join(WORK, f"share-{name}-{tag}", "vault.db"), f"bench-{name}-{tag}"
    os.makedirs(os.path.dirname(vault), exist_ok=True)
    make_coffer_vault(vault, None, passfile)
    run(coffer("account", "signup", "--vault", vault, "--server", kinto, "--user", user, "--password-file", pwfile))
    return vault, user


def share_invite(shared, guest_vault, name, passfile):
    host = Talking(coffer("--vault", shared, "--passphrase-file", passfile, "share", "invite"))
    code = re.search(r"[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{3}", host.wait_for("Waiting for them")).group(0)
    guest = Talking(coffer("--vault", guest_vault, "--passphrase-file", passfile, "share", "join", "--code", code,
                           "--name", name))
    host.wait_for("wants to join")
    guest.wait_for("does the inviting screen show this number?")
    host.answer("y")
    guest.answer("y")
    host.finish()
    guest.finish()


def share_figures(kinto, passfile, pwfile, runs):
    """`share revoke` of a member of a SHARE_ITEMS-item shared vault, whole process (a new member invited
    before each run, untimed), and idle syncs of the owner's personal and shared vault."""
    tag = str(int(time.time()))
    owner, _ = share_person(kinto, "ann", tag, passfile, pwfile)
    run(coffer("share", "create", "bench", "--vault", owner, "--passphrase-file", passfile, "--as", "Ann"))
    shared = os.path.join(os.path.dirname(owner), "bench.db")
    json_path = os.path.join(WORK, f"share-items-{SHARE_ITEMS}.json")
    write_coffer_json(make_items(SHARE_ITEMS), json_path)
    run(coffer("import", "--vault", shared, "--passphrase-file", passfile, "--format", "json", json_path))
    seconds, _, _, _ = run(coffer("sync", "--vault", shared))
    log(f"shared vault of {SHARE_ITEMS:,} items sent: {seconds:.1f} s")
    revokes, rewritten = [], 0
    for attempt in range(runs):
        log(f"share revoke in a {SHARE_ITEMS:,}-item shared vault ({attempt + 1}/{runs})")
        guest, _ = share_person(kinto, f"guest{attempt}", tag, passfile, pwfile)
        share_invite(shared, guest, f"Guest{attempt}", passfile)
        elapsed, _, _, _ = run(coffer("--vault", shared, "--passphrase-file", passfile, "share", "revoke", f"Guest{attempt}"))
        err = subprocess.run(coffer("--vault", shared, "share", "members"), capture_output=True, text=True).stdout
        assert f"Guest{attempt}" not in err, err
        revokes.append(elapsed)
    # What the revocation rewrote (a batch of 25 per request): every record of the small collections;
    # of the items only those the person wrote last, none here (architecture §17).
    for collection in ("keystores", "roster", "seals"):
        raw = Raw(kinto, f"bench-ann-{tag}")
        status, headers, body = raw.request("GET", f"/buckets/{shared_bucket(shared)}/collections/{collection}/records?_fields=id")
        rewritten += len(body["data"]) if status == 200 else 0
    run(coffer("sync", "--vault", owner))
    run(coffer("sync", "--vault", shared))
    idle_personal = statistics.median(run(coffer("sync", "--vault", owner))[0] for _ in range(max(runs, 5)))
    idle_shared = statistics.median(run(coffer("sync", "--vault", shared))[0] for _ in range(max(runs, 5)))
    log(f"share: revoke median {statistics.median(revokes):.2f} s, {rewritten} records rewritten; "
        f"idle syncs {idle_personal * 1000:.0f} + {idle_shared * 1000:.0f} ms")
    return {"revoke": statistics.median(revokes), "rewritten": rewritten, "idle_personal": idle_personal,
            "idle_shared": idle_shared}


def shared_bucket(shared):
    return sqlite3.connect(shared).execute("SELECT value FROM meta WHERE key = 'share_vault'").fetchone()[0]


def share_rows(row, share):
    batches = -(-share["rewritten"] // 25)
    row(f"`share revoke` of a member of a {SHARE_ITEMS:,}-item shared vault, whole process (roster entry, seals, a 2 s "
        f"wait for a raced removal, group, the {share['rewritten']:,} other records' permissions rewritten in {batches} batches, "
        f"two syncs, and new keys: a new vault key and {SHARE_ITEMS:,} item keys in the keystore; no item written, "
        f"since 2026-12-07)", ms(share["revoke"]), "—", "—", "≤ 5 s", share["revoke"] <= 5)
    both = share["idle_personal"] + share["idle_shared"]
    row("idle sync of a person with a personal and a shared vault (two `sync` processes, 3 conditional GETs each)",
        f"{ms(share['idle_personal'])} + {ms(share['idle_shared'])} = {ms(both)}", "—", "—", "—", None)


# ---------------------------------------------------------------------------------------------

def machine():
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    mem = next((int(l.split()[1]) for l in open("/proc/meminfo") if l.startswith("MemTotal")), 0) / 1024 / 1024
    kernel = platform.release()
    swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()
    kpx = subprocess.run(["keepassxc-cli", "--version"], capture_output=True, text=True).stdout.strip()
    return (f"{os.cpu_count()} cores ({cpu}), {mem:.1f} GiB RAM, Linux {kernel}, "
            f"{swift[0] if swift else 'swift ?'}, keepassxc-cli {kpx}, Python {platform.python_version()}")


def ms(seconds):
    return f"{seconds * 1000:,.0f} ms" if seconds >= 0.1 else f"{seconds * 1000:,.1f} ms"


def table_row(figure, mine, peer, ratio, goal, met):
    return (figure, mine, peer, ratio, goal, "—" if met is None else ("yes" if met else "**no**"))


def write_table(rows, header):
    table = ["| figure | coffer | peer | ratio | goal | met? |", "|---|---|---|---|---|---|"]
    table += ["| " + " | ".join(r) + " |" for r in rows]
    text = header + "\n" + "\n".join(table) + "\n"
    with open(OUT, "w") as f:
        f.write(text)
    print(text)
    print(f"(written to {os.path.relpath(OUT, ROOT)})")


def main():
    if not os.access(BIN, os.X_OK):
        sys.exit(f"{BIN} is missing: run `make bench` (it builds it)")
    if ONLY not in ("", "files", "share", "ssh", "agent"):
        sys.exit(f"BENCH_ONLY={ONLY}: the parts that run alone are 'files', 'share', 'ssh' and 'agent'")
    kinto = os.environ.get("COFFER_TEST_KINTO_URL")
    if ONLY in ("files", "share") and not kinto:
        sys.exit(f"BENCH_ONLY={ONLY} needs a Kinto (COFFER_TEST_KINTO_URL): run it through `make bench`")
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    passfile, pwfile = os.path.join(WORK, "passphrase"), os.path.join(WORK, "account-password")
    with open(passfile, "w") as f:
        f.write(PASSPHRASE + "\n")
    with open(pwfile, "w") as f:
        f.write(ACCOUNT_PASSWORD + "\n")
    for secret in (passfile, pwfile):
        os.chmod(secret, 0o600)  # coffer refuses a passphrase file others can read
    host = machine()
    log(host)
    if ONLY:
        log(f"mode: BENCH_ONLY={ONLY}{', BENCH_SMALL' if SMALL else ''} ({RUNS} runs)")
        rows = []
        add = lambda *cells: rows.append(table_row(*cells))
        if ONLY == "files":
            file_rows(add, file_figures(kinto, passfile, pwfile, RUNS))
        elif ONLY == "ssh":
            ssh_rows(add, ssh_sign_figures(passfile, RUNS))
        elif ONLY == "agent":
            agent_rows(add, N2, agent_only(passfile, RUNS))
        else:
            share_rows(add, share_figures(kinto, passfile, pwfile, RUNS))
        peer = "none" if ONLY == "agent" else "a raw Python HTTP client against the same in-memory Kinto"
        write_table(rows, f"`make bench` (BENCH_ONLY={ONLY}{', BENCH_SMALL=1' if SMALL else ''}), "
                          f"{time.strftime('%Y-%m-%d')}; medians of {RUNS} runs.\n\nMachine: {host}.\n\n"
                          f"Peer: {peer}.\n")
        return
    log(f"mode: {'BENCH_SMALL' if SMALL else 'full'} ({N1:,} and {N2:,} items, {RUNS} runs)")

    # Data and vaults.
    empty_kdbx = os.path.join(WORK, "empty.kdbx")
    root_uuid = make_empty_kdbx(empty_kdbx)
    empty_vault = os.path.join(WORK, "empty.db")
    make_coffer_vault(empty_vault, None, passfile)
    vaults, kdbx, edited_title = {}, {}, {}
    for n in (N1, N2):
        items = make_items(n)
        edited_title[n] = items[n // 2]["title"]
        json_path, xml_path = os.path.join(WORK, f"items-{n}.json"), os.path.join(WORK, f"items-{n}.xml")
        write_coffer_json(items, json_path)
        write_keepass_xml(items, xml_path, root_uuid)
        vaults[n] = os.path.join(WORK, f"coffer-{n}.db")
        make_coffer_vault(vaults[n], json_path, passfile)
        kdbx[n] = os.path.join(WORK, f"keepass-{n}.kdbx")
        entries = make_kdbx(kdbx[n], empty_kdbx, xml_path)
        if entries != n:
            raise RuntimeError(f"the KDBX holds {entries} entries, not {n}")

    # Whole-process search.
    kpx_in = f"{PASSPHRASE}\n"
    search = {}
    first_search, changed_search = {}, {}
    for n, vault in [(0, empty_vault), (N1, vaults[N1]), (N2, vaults[N2])]:
        kdb = empty_kdbx if n == 0 else kdbx[n]
        peer_runs = RUNS_BIG_PEER if n == N2 else RUNS
        search_cmd = coffer("search", "--vault", vault, "--passphrase-file", passfile, QUERY)
        # The first search after the import opens every item and stores the sealed search index;
        # the runs after it use the index (the figures below), as every search after the first.
        first_search[n] = run(search_cmd)[0]
        c = median_run(search_cmd, RUNS, memory=True)
        k = median_run(["keepassxc-cli", "search", "-q", kdb, QUERY], peer_runs, memory=True, stdin_text=kpx_in,
                       check=False)
        search[n] = (c, k)
        hits_c = len([l for l in c[2].splitlines() if QUERY in l.lower()])
        hits_k = len([l for l in k[2].splitlines() if l.strip()])
        log(f"search {n:,}: coffer {c[0]*1000:.0f} ms {c[1]:.0f} MiB ({hits_c} hits; the first, index built: "
            f"{first_search[n]*1000:.0f} ms), keepassxc-cli {k[0]*1000:.0f} ms {k[1]:.0f} MiB ({hits_k} hits)")
        if n:
            # One item edited (by another command) before each search: the index is brought up to date.
            times = []
            for attempt in range(3):
                run(coffer("edit", "--vault", vault, "--passphrase-file", passfile, edited_title[n],
                           "--notes", f"changed {attempt}"))
                times.append(run(search_cmd)[0])
            changed_search[n] = statistics.median(times)
            log(f"search {n:,} after one item changed: {changed_search[n]*1000:.0f} ms")

    agent = agent_figures(vaults[N2], passfile, RUNS, edited_title[N2])
    log(f"agent at {N2:,}: {agent}")

    version_c, _, _ = median_run(coffer("--version"), RUNS * 2)
    version_k, _, _ = median_run(["keepassxc-cli", "--version"], RUNS * 2)
    # `coffer run` with no reference to resolve: what it adds to every program it starts (parse, look up, exec).
    run_c, _, _ = median_run(coffer("run", "--", "true"), RUNS * 2)
    run_e, _, _ = median_run(["env", "true"], RUNS * 2)

    log("screen: start, unlock, search as you type")
    start_ms, unlock_ms, all_items_ms, keys = screen_figures(vaults[N2], RUNS)
    idle_seconds = 10 if SMALL else 30
    idle = idle_cpu(vaults[N2], idle_seconds)
    log(f"screen idle: {idle:.2f} % of a core over {idle_seconds} s")

    ssh = ssh_sign_figures(passfile, RUNS)
    log(f"ssh-keygen -Y sign: Coffer's agent {ssh[0]*1000:.1f} ms, ssh-agent {ssh[1]*1000:.1f} ms")
    sync = sync_figures(kinto, vaults[N1], passfile, pwfile, RUNS) if kinto else None
    files = file_figures(kinto, passfile, pwfile, RUNS) if kinto else None
    share = share_figures(kinto, passfile, pwfile, RUNS) if kinto else None

    # The table.
    rows = []

    def row(figure, mine, peer, ratio, goal, met):
        rows.append(table_row(figure, mine, peer, ratio, goal, met))

    for n, goal in ((N1, 0.33), (N2, 0.1)):
        (c, _, _), (k, _, _) = search[n][0], search[n][1]
        row(f"`search` on {n:,} items, whole process (Argon2id 64 MiB, t=3)", ms(c), ms(k), f"{c / k:.2f}×",
            f"≤ {goal}×", c / k <= goal)
    agent_rows(row, N2, agent, search[N2][1][0])
    cm, km = search[N2][0][1], search[N2][1][1]
    row(f"peak memory of `search` on {N2:,} items", f"{cm:,.0f} MiB", f"{km:,.0f} MiB", f"{cm / km:.2f}×",
        "≤ 100 MiB", cm <= 100)
    per_item = {}
    for n in (N1, N2):
        c = (search[n][0][0] - search[0][0][0]) / n * 1e6
        k = (search[n][1][0] - search[0][1][0]) / n * 1e6
        per_item[n] = c
        row(f"per-item cost of `search` at {n:,} (N items − empty vault) / N", f"{c:.1f} µs", f"{k:.1f} µs",
            f"{c / k:.2f}×", "≤ 5 µs, flat in N", c <= 5)
    for n in (N1, N2):
        row(f"`search` on {n:,} items, the first after the import (opens every item, stores the search index) / "
            f"after one item changed (the index brought up to date)",
            f"{ms(first_search[n])} / {ms(changed_search[n])}", ms(search[n][1][0]), "—", "—", None)
    row("`--version`, whole process", ms(version_c), ms(version_k), f"{version_c / version_k:.2f}×", "≤ 8 ms",
        version_c <= 0.008)
    row("`run -- true` (no reference: parse, look the program up, exec), whole process", ms(run_c),
        ms(run_e) + " (`env true`)", f"{run_c / run_e:.1f}×", "—", None)
    row(f"start → locked screen drawn ({N2:,}-item vault)", f"{start_ms:.1f} ms", "—", "—", "≤ 20 ms", start_ms <= 20)
    row(f"unlock {N2:,} items: keys ready (after KDF) → first page drawn (every item open after "
        f"{all_items_ms:,.0f} ms, the screen answering keys)", f"{unlock_ms:,.0f} ms", "—", "—", "≤ 150 ms",
        unlock_ms <= 150)
    row(f"screen idle CPU, unlocked {N2:,} items, nothing happening ({idle_seconds} s, /proc utime + stime)",
        f"{idle:.2f} % of a core", "—", "—", "≤ 0.3 %", idle <= 0.3)
    if keys:
        p50, p99 = percentile(keys, 50), percentile(keys, 99)
        row(f"search as you type at {N2:,} items, key → frame drawn, p50 / p99 ({len(keys)} keys)",
            f"{p50:.1f} / {p99:.1f} ms", "—", "—", "p99 ≤ 8 ms", p99 <= 8)
    if sync:
        n = sync["n"]
        c, r = sync["upload_coffer"], sync["upload_raw"]
        row(f"first upload of {n:,} items", f"{c:,.0f} items/s", f"{r:,.0f} items/s (raw client)", f"{c / r:.2f}×",
            "≥ 0.9×", c / r >= 0.9)
        # `join` derives the key (Argon2id) before it downloads: the time of a whole `search` on the
        # empty vault (start, open, KDF) is taken off, as the "after the KDF" asks.
        whole = n / sync["download_coffer"]
        kdf = search[0][0][0]
        c, r = n / max(whole - kdf, 1e-3), sync["download_raw"]
        row(f"first download (new device: `join`) of {n:,} items, after the KDF ({whole * 1000:,.0f} ms whole, "
            f"{kdf * 1000:,.0f} ms start + KDF taken off)", f"{c:,.0f} items/s",
            f"{r:,.0f} items/s (raw client storing the rows in SQLite, one transaction)", f"{c / r:.2f}×",
            "≥ 0.8×", c / r >= 0.8)
        # A shared vault's first download checks each version's signature (issue 42): the join above
        # plus the checks, measured in process on as many signed versions.
        checks = statistics.median(json.loads(run([RECONCILE_BIN, "signatures", str(n)])[3])["verify_ms"] for _ in range(3)) / 1000
        shared = n / (n / c + checks)
        row(f"first download of {n:,} items of a shared vault: the `join` above plus each version's Ed25519 check "
            f"({checks * 1000:,.0f} ms for {n:,} on one core, `CofferBench signatures`: fetch spreads them over every "
            f"core, so this is the most they add)", f"{shared:,.0f} items/s",
            f"{r:,.0f} items/s (raw client, as above)", f"{shared / r:.2f}×", "≥ 0.9× (issue 42)", shared / r >= 0.9)
        seen = sync["noop_requests"]
        described = ", ".join(f"{r['method']} {r['path'].split('?')[0].rsplit('/', 2)[-2] if r['path'].count('/') > 2 else r['path']} → {r['status']}" for r in seen)
        conditional = [r for r in seen if r["status"] == 304]
        row("sync with nothing to do: requests", f"{len(seen)} ({described})", "3 conditional GETs → 304", "—",
            "one conditional request per collection, 304", len(seen) == 3 and len(conditional) == 3)
        c, r = sync["noop_coffer"], sync["noop_raw"]
        row("sync with nothing to do: time, whole process", ms(c), ms(r) + " (3 requests)", f"{c / r:.1f}×", "≤ 2×",
            c / r <= 2)
        f = sync["noop_curl"]
        row("sync with nothing to do against the floor of a whole process through libcurl (`curl` asking the same 3 "
            "conditional GETs one after the other, start to exit; coffer asks them at once)", ms(c), ms(f), f"{c / f:.1f}×",
            "≤ 1.2× (issue 33)", c / f <= 1.2)
    else:
        row("sync figures", "not run (no COFFER_TEST_KINTO_URL)", "—", "—", "—", None)
    ssh_rows(row, ssh)
    if files:
        file_rows(row, files)
    if share:
        share_rows(row, share)
    merges = [json.loads(run([RECONCILE_BIN, "reconcile", "1000"])[3]) for _ in range(RUNS)]
    merge_ms = statistics.median(m["reconcile_ms"] for m in merges)
    row("reconcile 1,000 conflicts on unlock, after the KDF (in process: `CofferBench reconcile`)",
        f"{merge_ms:,.0f} ms", "—", "—", "≤ 80 ms", merge_ms <= 80)

    relists = [json.loads(run([RECONCILE_BIN, "relist", str(N2)])[3]) for _ in range(RUNS)]
    list_ms = statistics.median(m["list_ms"] for m in relists)
    relist_ms = statistics.median(m["relist_ms"] for m in relists)
    row(f"screen reload after another process changed 1 of {N2:,} items (in process: `CofferBench relist`; "
        f"first listing {list_ms:,.0f} ms)", f"{relist_ms:,.0f} ms", "—", "—", "≤ 300 ms", relist_ms <= 300)

    header = (f"`make bench`{' (BENCH_SMALL=1)' if SMALL else ''}, {time.strftime('%Y-%m-%d')}; "
              f"medians of {RUNS} runs ({RUNS_BIG_PEER} for keepassxc-cli on {N2:,}, {DOWNLOAD_RUNS} for the first downloads).\n\n"
              f"Machine: {host}.\n\nPeers: keepassxc-cli on a KDBX 4 file with the same items and KDF; "
              f"a raw Python HTTP client against the same in-memory Kinto.\n")
    write_table(rows, header)


if __name__ == "__main__":
    main()
