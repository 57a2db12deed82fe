#!/usr/bin/python3
"""`make bench-server`: how many idle devices one Kinto process on PostgreSQL serves with p99 ≤ 100 ms.

Run by the Makefile under Resources/scripts/with-kinto-postgresql.sh, which starts Kinto and a private
PostgreSQL cluster on loopback ports and names them in COFFER_TEST_KINTO_URL, COFFER_TEST_KINTO_PID and
COFFER_TEST_PG_DATA. Standard library only (Debian's python3 or the .venv's).

What a device does (read from Sources/CofferSync and checked with a logging proxy in front of Kinto):
an idle `coffer sync` is three GETs, one after the other, each on a new TCP connection (each sync is a
new process, and `kinto start`'s waitress closes the connection after every 304: it sends no
Content-Length there and so marks the connection to close):

    GET /v1/buckets/BUCKET/collections/items/records?_sort=last_modified&_since=M1      If-None-Match: "M1"
    GET /v1/buckets/BUCKET/collections/keystores/records?_sort=last_modified&_since=M2  If-None-Match: "M2"
    GET /v1/buckets/BUCKET/collections/messages/records?recipient=DEVICE_ID              If-None-Match: "M3"

BUCKET is the account's bucket id, which a vault learns after its first sync (`--bucket default`
replays a vault before it, and every vault before 2026-11-27).

each with HTTP Basic auth, each answered 304.

The run: accounts are created as `coffer account signup` does (PUT /v1/accounts/NAME, If-None-Match: *),
each gets sealed-looking items, a keystore and its devices' records (POST /v1/batch, ≤ 25 writes each),
and a first listing gives each its markers. Then, for each step, N devices sync once every INTERVAL
seconds, spread evenly (N / INTERVAL syncs a second, open loop: a sync starts on time whether or not the
previous ones have finished, and its latency counts from when it was due), for STEP_SECONDS. N doubles
until the p99 of a sync passes the limit, an error appears, or the time budget runs out (it halves while
no step has passed); then one step between the last N that passed and the first that failed. Above
--max-accounts, devices share accounts (a person's laptop and phone do too): that changes no request's
work once the account's password is in Kinto's cache, and keeps the setup's bcrypt work (a hash at
signup, a check at the first request: ~0.2 s of CPU each) within the time bound.

Measured per step: latency of each request and of each sync (p50/p95/p99), errors (anything but a 304,
a refused or timed-out connection), CPU of the Kinto process and of PostgreSQL (all its processes) from
/proc, this client's own CPU and how late it started syncs (p99; lateness counts in a sync's latency),
the machine's busy share and load average (other work shares the cores).
Printed as one Markdown table, also written to .build/bench-server.md.
"""

import argparse
import asyncio
import base64
import json
import os
import random
import sys
import time
import urllib.parse
import uuid

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, ".build", "bench-server.md")
TICKS = os.sysconf("SC_CLK_TCK")
LOOPBACK = ("127.0.0.1", "localhost", "::1")


def log(message):
    print(f"[bench-server {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# HTTP/1.1 over asyncio streams: a new connection for every request, as each `coffer sync` does.

class Answer:
    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body

    def json(self):
        return json.loads(self.body)


async def _read_body(reader, headers):
    if headers.get("transfer-encoding", "").lower() == "chunked":
        chunks = []
        while True:
            size = int((await reader.readline()).split(b";")[0], 16)
            if size == 0:
                await reader.readline()
                return b"".join(chunks)
            chunks.append(await reader.readexactly(size))
            await reader.readline()
    length = int(headers.get("content-length", "0"))
    return await reader.readexactly(length) if length else b""


async def _exchange(host, port, method, target, headers, body):
    reader, writer = await asyncio.open_connection(host, port)
    try:
        lines = [f"{method} {target} HTTP/1.1", f"Host: {host}:{port}", "Accept: */*"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        if body is not None:
            lines += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + (body or b""))
        status_line = await reader.readline()
        if not status_line:
            raise ConnectionError("the server closed the connection without answering")
        status = int(status_line.split()[1])
        answer_headers = {}
        while True:
            line = await reader.readline()
            if line in (b"\r\n", b"\n", b""):
                break
            name, _, value = line.decode("latin-1").partition(":")
            answer_headers[name.strip().lower()] = value.strip()
        data = b"" if status in (204, 304) or method == "HEAD" else await _read_body(reader, answer_headers)
        return Answer(status, answer_headers, data)
    finally:
        writer.close()


async def request(server, method, path, headers=None, body=None, timeout=10.0):
    """One request on a fresh connection; raises on a transport failure or timeout."""
    payload = None if body is None else json.dumps(body).encode()
    return await asyncio.wait_for(
        _exchange(server.host, server.port, method, server.prefix + path, headers or {}, payload), timeout)


class Server:
    def __init__(self, url):
        parts = urllib.parse.urlsplit(url)
        if parts.scheme != "http" or parts.hostname not in LOOPBACK:
            raise SystemExit(f"bench-server: {url} is not a loopback http:// server; this load stays on this machine")
        self.host, self.port = parts.hostname, parts.port or 80
        self.prefix = parts.path.rstrip("/")


# ---------------------------------------------------------------------------------------------
# Accounts, their records and their markers.

def basic(user, password):
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def sealed(size):
    """A base64 blob the size of a sealed item: random bytes look like ciphertext to the server."""
    return base64.b64encode(os.urandom(size)).decode()


class Account:
    def __init__(self, name):
        self.name = name
        self.password = base64.b64encode(os.urandom(24)).decode()  # Coffer's account passwords: 24 random bytes
        self.authorization = basic(name, self.password)
        self.devices = []
        self.markers = {}
        self.bucket = "default"


class Device:
    def __init__(self, account):
        self.account = account
        self.id = str(uuid.uuid4())


def record_writes(account, items):
    writes = []
    for _ in range(items):
        writes.append(("items", str(uuid.uuid4()), {
            "encrypted": sealed(random.randint(350, 1100)), "active": "active", "tags": [],
            "origins": [sealed(32) for _ in range(random.randint(0, 2))]}))
    writes.append(("keystores", "default", {
        "kdf": {"salt": sealed(16), "memory": 67108864, "algorithm": "argon2id13", "iterations": 3},
        "verifier": sealed(32), "encrypted": sealed(random.randint(80, 200) + 48 * items), "wrapped_key": sealed(60)}))
    for device in account.devices:
        writes.append(("devices", device.id, {"box": sealed(100), "publicKey": sealed(32),
                                              "capabilities": ["lock", "signout", "credentials"]}))
    return writes


async def create_account(server, account, items, by_id):
    """Signup, first upload and first listing, as a new vault's first sync would do them."""
    started = time.perf_counter()
    answer = await request(server, "PUT", f"/accounts/{account.name}", {"If-None-Match": "*"},
                           {"data": {"password": account.password}}, timeout=60)
    signup = time.perf_counter() - started
    if answer.status != 201:
        raise RuntimeError(f"signup of {account.name}: HTTP {answer.status} {answer.body[:200]!r}")
    auth = {"Authorization": account.authorization}
    writes = record_writes(account, items)
    for start in range(0, len(writes), 25):
        chunk = [{"method": "PUT", "path": f"/buckets/default/collections/{c}/records/{rid}",
                  "headers": {"If-None-Match": "*"}, "body": {"data": data}} for c, rid, data in writes[start:start + 25]]
        for attempt in range(8):
            answer = await request(server, "POST", "/batch", auth, {"requests": chunk}, timeout=60)
            statuses = {r["status"] for r in answer.json()["responses"]} if answer.status == 200 else {answer.status}
            # Kinto on PostgreSQL answers 409 when two accounts' first writes race for the shared bucket
            # timestamp (the batch is rolled back whole): try again, as the engine's next sync would.
            if 409 not in statuses:
                break
            await asyncio.sleep(0.2 * (attempt + 1))
        if not statuses <= {201, 412}:
            raise RuntimeError(f"upload for {account.name}: HTTP {sorted(statuses)}")
    for collection, query in (("items", "_sort=last_modified"), ("keystores", "_sort=last_modified"),
                              ("messages", f"recipient={account.devices[0].id}")):
        answer = await request(server, "GET", f"/buckets/default/collections/{collection}/records?{query}", auth, timeout=60)
        if answer.status != 200 or "etag" not in answer.headers:
            raise RuntimeError(f"listing {collection} for {account.name}: HTTP {answer.status}")
        account.markers[collection] = answer.headers["etag"].strip('W/" ')
    if by_id:
        answer = await request(server, "GET", "/", auth, timeout=60)
        account.bucket = answer.json()["user"]["bucket"]
    return signup


def idle_requests(device):
    """The three conditional GETs of an idle sync, in the engine's order (SyncEngine.runSteps)."""
    markers, bucket = device.account.markers, f"/buckets/{device.account.bucket}/collections"
    return [
        (f"{bucket}/items/records?_sort=last_modified&_since={markers['items']}", markers["items"]),
        (f"{bucket}/keystores/records?_sort=last_modified&_since={markers['keystores']}", markers["keystores"]),
        (f"{bucket}/messages/records?recipient={device.id}", markers["messages"]),
    ]


# ---------------------------------------------------------------------------------------------
# CPU from /proc.

def _stat(pid):
    with open(f"/proc/{pid}/stat") as file:
        text = file.read()
    fields = text[text.rindex(")") + 2:].split()
    return int(fields[1]), int(fields[11]) + int(fields[12])  # ppid, utime + stime (ticks)


def process_tree_ticks(root_pids):
    """CPU ticks of these processes and all their descendants (PostgreSQL's backends, say)."""
    parents, ticks = {}, {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                parents[int(entry)], ticks[int(entry)] = _stat(entry)
            except (OSError, ValueError, IndexError):
                pass
    total, wanted = 0, set(root_pids)
    for pid in ticks:
        walk = pid
        while walk and walk not in wanted and walk in parents:
            walk = parents[walk]
        if walk in wanted:
            total += ticks[pid]
    return total


def machine_ticks():
    with open("/proc/stat") as file:
        values = [int(v) for v in file.readline().split()[1:]]
    idle = values[3] + values[4]
    return sum(values) - idle, sum(values)


def load_average():
    with open("/proc/loadavg") as file:
        return float(file.read().split()[0])


# ---------------------------------------------------------------------------------------------
# One step: N devices at one sync each INTERVAL seconds, open loop.

def percentile(values, p):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


class Step:
    def __init__(self, devices, accounts):
        self.devices, self.accounts = devices, accounts
        self.sync_ms, self.request_ms, self.lag_ms = [], [], []
        self.errors, self.error_kinds, self.syncs, self.unfinished = 0, {}, 0, 0


async def one_sync(server, device, due, step, timeout):
    lag = time.perf_counter() - due
    step.lag_ms.append(lag * 1000)
    auth = device.account.authorization
    try:
        for path, marker in idle_requests(device):
            sent = time.perf_counter()
            answer = await request(server, "GET", path, {"Authorization": auth, "If-None-Match": f'"{marker}"'}, timeout=timeout)
            step.request_ms.append((time.perf_counter() - sent) * 1000)
            if answer.status != 304:
                raise RuntimeError(f"HTTP {answer.status}")
    except Exception as error:  # a refused connection, a timeout or an unexpected answer: all count
        step.errors += 1
        kind = type(error).__name__ if not isinstance(error, RuntimeError) else str(error)
        step.error_kinds[kind] = step.error_kinds.get(kind, 0) + 1
        return
    step.sync_ms.append((time.perf_counter() - due) * 1000)
    step.syncs += 1


async def run_step(server, devices, accounts, cursor, args, pids):
    rate = len(devices) / args.interval
    count = max(1, int(rate * args.step_seconds))
    step = Step(len(devices), accounts)
    kinto0, pg0 = process_tree_ticks(pids["kinto"]), process_tree_ticks(pids["postgres"])
    busy0, all0 = machine_ticks()
    client0, wall0 = time.process_time(), time.perf_counter()
    start = time.perf_counter() + 0.2
    tasks = set()
    for k in range(count):
        due = start + k / rate
        delay = due - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        if len(tasks) >= args.max_in_flight:
            step.unfinished = count - k
            step.error_kinds["client over its in-flight bound"] = step.unfinished
            step.errors += step.unfinished
            break
        task = asyncio.create_task(one_sync(server, devices[(cursor + k) % len(devices)], due, step, args.timeout))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
    if tasks:
        await asyncio.wait(tasks)
    wall = time.perf_counter() - wall0
    kinto1, pg1 = process_tree_ticks(pids["kinto"]), process_tree_ticks(pids["postgres"])
    busy1, all1 = machine_ticks()
    step.rate = rate
    step.wall = wall
    step.kinto_cpu = (kinto1 - kinto0) / TICKS
    step.pg_cpu = (pg1 - pg0) / TICKS
    step.client_cpu = time.process_time() - client0
    step.machine_busy = (busy1 - busy0) / max(1, all1 - all0)
    step.load = load_average()
    return step, (cursor + count) % len(devices)


def passes(step, limit):
    return step.errors == 0 and percentile(step.sync_ms, 99) <= limit


# ---------------------------------------------------------------------------------------------
# The ramp and the table.

def row(step):
    done = max(1, step.syncs)
    q = lambda values, p: f"{percentile(values, p):.0f}"
    return (f"| {step.devices:,} | {step.accounts:,} | {step.rate:.1f} | {step.syncs:,} | {step.errors} | "
            f"{q(step.request_ms, 50)} / {q(step.request_ms, 95)} / {q(step.request_ms, 99)} | "
            f"{q(step.sync_ms, 50)} / {q(step.sync_ms, 95)} / {q(step.sync_ms, 99)} | "
            f"{100 * step.kinto_cpu / step.wall:.0f} | {1000 * step.kinto_cpu / done:.1f} | "
            f"{100 * step.pg_cpu / step.wall:.0f} | {1000 * step.pg_cpu / done:.1f} | "
            f"{100 * step.client_cpu / step.wall:.0f} | {q(step.lag_ms, 99)} | {100 * step.machine_busy:.0f} | {step.load:.1f} |")


HEADER = ("| devices | accounts | syncs/s | syncs | errors | request p50 / p95 / p99 ms | sync p50 / p95 / p99 ms | "
          "Kinto CPU % | Kinto CPU ms/sync | PostgreSQL CPU % | PostgreSQL CPU ms/sync | client CPU % | "
          "client late p99 ms | machine busy % | load |\n|---:|---:|---:|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")


async def ensure_accounts(server, accounts, wanted, args, signups):
    new = [Account(f"{args.prefix}-{len(accounts) + i}") for i in range(max(0, wanted - len(accounts)))]
    if not new:
        return
    log(f"creating {len(new)} account(s) ({len(accounts)} exist)")
    gate = asyncio.Semaphore(args.setup_concurrency)

    async def create(account):
        account.devices.append(Device(account))
        async with gate:
            signups.append(await create_account(server, account, args.items, args.bucket == "id"))

    started = time.perf_counter()
    await asyncio.gather(*(create(a) for a in new))
    accounts.extend(new)
    log(f"  {len(new)} account(s) in {time.perf_counter() - started:.1f} s")


def devices_for(accounts, n):
    """N devices over the accounts: each account's first device, then more of them round-robin."""
    while sum(len(a.devices) for a in accounts) < n:
        fewest = min(accounts, key=lambda a: len(a.devices))
        fewest.devices.append(Device(fewest))
    by_rank = []
    for rank in range(max(len(a.devices) for a in accounts)):
        by_rank += [a.devices[rank] for a in accounts if rank < len(a.devices)]
    return by_rank[:n]


async def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", default=os.environ.get("COFFER_TEST_KINTO_URL"))
    parser.add_argument("--kinto-pid", type=int, default=int(os.environ.get("COFFER_TEST_KINTO_PID", "0")))
    parser.add_argument("--pg-data", default=os.environ.get("COFFER_TEST_PG_DATA"))
    parser.add_argument("--interval", type=float, default=60.0, help="seconds between two syncs of a device")
    parser.add_argument("--step-seconds", type=float, default=30.0)
    parser.add_argument("--steps", default="", help="comma-separated device counts (default: double from --start)")
    parser.add_argument("--start", type=int, default=100)
    parser.add_argument("--max-devices", type=int, default=12800)
    parser.add_argument("--max-accounts", type=int, default=100)
    parser.add_argument("--items", type=int, default=20, help="items each account holds")
    parser.add_argument("--settle-seconds", type=float, default=0.0,
                        help="pause before the first step, longer than Kinto's account cache TTL to start cold")
    parser.add_argument("--limit-ms", type=float, default=100.0, help="the p99 a sync must stay within")
    parser.add_argument("--budget-seconds", type=float, default=780.0, help="no new step starts after this")
    parser.add_argument("--timeout", type=float, default=10.0, help="per request")
    parser.add_argument("--max-in-flight", type=int, default=400, help="syncs open at once before a step gives up")
    parser.add_argument("--setup-concurrency", type=int, default=4)
    parser.add_argument("--bucket", choices=("default", "id"), default="id",
                        help="address the account's bucket id (GET /v1/ user.bucket; Coffer once a sync learned it) "
                             "or /buckets/default (a vault before its first sync; Coffer before 2026-11-27)")
    parser.add_argument("--prefix", default=f"bench{os.getpid()}")
    parser.add_argument("--label", default=os.environ.get("BENCH_SERVER_LABEL", ""))
    args = parser.parse_args()
    if not args.url:
        raise SystemExit("bench-server: no server (run it under Resources/scripts/with-kinto-postgresql.sh)")
    server = Server(args.url)
    pids = {"kinto": [args.kinto_pid] if args.kinto_pid else [], "postgres": []}
    if args.pg_data:
        with open(os.path.join(args.pg_data, "postmaster.pid")) as file:
            pids["postgres"] = [int(file.readline())]
    began = time.perf_counter()
    accounts, signups, steps = [], [], []
    cursor = 0
    planned = [int(n) for n in args.steps.split(",") if n.strip()]
    n = planned.pop(0) if planned else args.start
    passed, failed, refined = None, None, False
    while n and n <= args.max_devices:
        await ensure_accounts(server, accounts, min(n, args.max_accounts), args, signups)
        devices = devices_for(accounts, n)
        if not steps and args.settle_seconds:
            log(f"settling {args.settle_seconds:.0f} s (the setup's requests leave each password in Kinto's cache)")
            await asyncio.sleep(args.settle_seconds)
        log(f"step: {n} devices, {n / args.interval:.1f} syncs/s for {args.step_seconds:.0f} s")
        step, cursor = await run_step(server, devices, min(n, len(accounts)), cursor % n, args, pids)
        steps.append(step)
        log("  " + row(step) + (f"  errors: {step.error_kinds}" if step.errors else ""))
        if passes(step, args.limit_ms):
            passed = max(passed or 0, n)
        else:
            failed = min(failed or n, n)
        if time.perf_counter() - began > args.budget_seconds:
            log("time budget spent")
            break
        if planned:
            n = planned.pop(0)
        elif failed is None:
            n *= 2
        elif passed is None:
            n = n // 2 if n // 2 >= 10 else 0  # even the first step failed: look below it
        elif passed and failed - passed > max(10, passed // 8) and not refined:
            refined = True  # one step between the last pass and the first failure
            n = (passed + failed) // 2
        else:
            break
    signups.sort()
    label = f" ({args.label})" if args.label else ""
    lines = [f"Idle-sync capacity of one Kinto process on PostgreSQL{label}: each device syncs every {args.interval:.0f} s "
             f"(3 conditional GETs, a new connection each), {args.step_seconds:.0f} s a step, "
             f"{args.items} items an account, /buckets/{'default' if args.bucket == 'default' else '<id>'}; p99 limit {args.limit_ms:.0f} ms.", "", HEADER]
    lines += [row(s) for s in steps]
    lines += ["", f"Signups (PUT /accounts, bcrypt): {len(signups)}, p50 {1000 * percentile(signups, 50):.0f} ms, "
              f"p99 {1000 * percentile(signups, 99):.0f} ms."]
    verdict = (f"bench-server: {passed:,} devices at p99 ≤ {args.limit_ms:.0f} ms" if passed else
               f"bench-server: no step kept p99 ≤ {args.limit_ms:.0f} ms")
    verdict += f"; first over: {failed:,}" if failed else "; none over within the bounds"
    lines += ["", verdict]
    text = "\n".join(lines)
    print(text)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "a" if os.environ.get("BENCH_SERVER_APPEND") else "w") as file:
        file.write(text + "\n\n")


if __name__ == "__main__":
    asyncio.run(main())
