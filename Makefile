# Coffer: `make run` opens the vault, `make test` runs every test. Both install what is missing.
SHELL := /bin/bash
SWIFT ?= swift
VENV := .venv
KINTO := $(VENV)/bin/kinto
APT_PACKAGES := libncursesw5-dev libsqlite3-dev libsodium-dev libcurl4 pkg-config tmux curl postgresql oathtool xvfb xclip libzxcvbn-dev zlib1g-dev libzbar-dev libpng-dev libargon2-dev qrencode gnupg keepassxc pass strace git openssh-client openssh-server
BIN := .build/debug/coffer
# Release builds link the Swift runtime and Foundation statically, so starting `coffer` does not wait
# for the dynamic loader to map and relocate them (`--version`: ~40 → ~20 ms on the bench machine).
# libcurl (libcurl4) is loaded with dlopen on the first request, not linked (Sources/CCurl/shim.h):
# mapping it and its ~30 libraries at every start took `--version` from ~5.5 to ~12 ms.
RELEASE := -c release --static-swift-stdlib
RELEASE_BIN := .build/release/coffer
PREFIX ?= $(HOME)/.local
space := $(empty) $(empty)

.PHONY: all deps build run check test server completions clean fuzz reliability bench bench-server release install

all: build

# System packages (only those missing) and Kinto in a virtual environment.
deps: .deps-apt $(KINTO)

# Re-checked when the package list changes (the stamp would otherwise hide a new package).
.deps-apt: Makefile
	@missing=$$(for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing: $$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi
	@touch $@

$(KINTO):
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check "kinto[postgresql]"


build: .deps-apt
	$(SWIFT) build

# The binary `make bench` measures and `make install` installs (the first build takes a while: README).
release: .deps-apt
	$(SWIFT) build $(RELEASE) --product coffer

run: release
	$(RELEASE_BIN)

# The release binary (stripped: 110 → 70 MB), git-credential-coffer beside it (so `git config credential.helper coffer`
# works), coffer(1) written by the binary from its command definitions (`coffer manual`, exit codes included) and its
# bash, zsh and fish completions, under PREFIX (default ~/.local).
install: release
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/site-functions \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -s -m 0755 $(RELEASE_BIN) $(DESTDIR)$(PREFIX)/bin/coffer
	install -m 0755 Resources/scripts/git-credential-coffer $(DESTDIR)$(PREFIX)/bin/git-credential-coffer
	$(RELEASE_BIN) manual > $(DESTDIR)$(PREFIX)/share/man/man1/coffer.1
	$(RELEASE_BIN) --generate-completion-script bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/coffer
	$(RELEASE_BIN) --generate-completion-script zsh > $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_coffer
	$(RELEASE_BIN) --generate-completion-script fish > $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/coffer.fish
	chmod 0644 $(DESTDIR)$(PREFIX)/share/man/man1/coffer.1 $(DESTDIR)$(PREFIX)/share/bash-completion/completions/coffer \
		$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_coffer $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/coffer.fish

# A local Kinto (in memory) on a loopback port, for trying sync by hand. Ctrl-C stops it.
server: deps
	KINTO_INI=Resources/kinto/memory.ini $(KINTO) start --ini Resources/kinto/memory.ini --port $${PORT:-8888}

# The fast tier, between edits: the build, then every test that needs no Kinto, no terminal (tmux) and
# no run of the binary (CofferCLITests; the agent's own tests, CofferAgentTests, run their servers in process
# and are in) — about a minute of tests after an incremental build. It runs
# without COFFER_TEST_KINTO_URL, so a new test that needs the server fails here until its class is
# added to CHECK_SKIP. `make test` stays the whole suite, the one CI runs.
CHECK_SKIP := CofferCLITests|EndToEnd|ClockSyncTests|DeviceMessageTests|InvitationTakeoverTests|KintoClientTests|\
	KintoFaultProxyTests|KintoSharingTests|RuntimeTests.testALock|ServerCanaryTests|SyncConcurrent|SyncConvergence|SyncFault|\
	SyncAccountBucket|SyncAttachment|SyncFetchLimit|SyncHostileRecord|SyncMalicious|SyncItemKinds|SyncRecovery|SyncRemovalInFlight|SyncRollback|SyncScenario|SyncSignature|SharedPermissionsTests
check: .deps-apt
	$(SWIFT) build --build-tests
	env -u COFFER_TEST_KINTO_URL $(SWIFT) test --skip-build --skip '$(subst $(space),,$(CHECK_SKIP))'

# Every test, with a Kinto started on a free loopback port and stopped afterwards, also on failure.
# The two-device suite and the shared vaults' three-person, revocation and raced-revocation tests run once more against
# Kinto on a private PostgreSQL cluster.
# On failure the failing tests' lines are printed again last, so the tail of a CI log names them.
test: deps
	$(SWIFT) build --build-tests
	@set -o pipefail; mkdir -p .build; \
	Resources/scripts/with-kinto.sh $(SWIFT) test --skip-build 2>&1 | tee .build/test.log \
		|| { Resources/scripts/failed-tests.sh .build/test.log; exit 1; }
	@set -o pipefail; \
	Resources/scripts/with-kinto-postgresql.sh $(SWIFT) test --skip-build --filter 'SyncScenarioTests|ShareCommandTests.testThreePeople|ShareCommandTests.testARevoked|ShareCommandTests.testTwoMembers' 2>&1 \
		| tee .build/test-postgresql.log || { Resources/scripts/failed-tests.sh .build/test-postgresql.log; exit 1; }

# Five parts, the first four each against its own Kinto on a loopback port, each ending with a summary line:
# 1. every crash point (COFFER_CRASH_POINT) × CRASH_SEEDS seeds, with the real binary: crash,
#    recover, check (Tests/CofferCLITests/CrashPointTests.swift). A run takes ~10 s of wall time
#    with two side by side on two cores: 63 points × 25 seeds is about 4 h 30 min (CRASH_SEEDS=3:
#    ~30 min).
# 2. every server fault × every step (sync, devices, messages, invitations, files, a shared vault's
#    roster: COFFER_FAULT_STEPS=all; `make test` leaves out the invitation's 66 cells, the shared vaults' 33 and the
#    refusals' 22, ~320 s a seed)
#    × FAULT_SEEDS seeds through fault-proxy.py (SyncFaultTests): 143 cells a seed, 445 s measured
#    (10 seeds: ~1 h 15 min) before the files' and the shared vaults' steps (231 cells a seed now).
# 3. MULTIPROCESS_SEEDS seeded histories of the screen, commands, an agent and a sync loop on one
#    vault with a kill -9 each (MultiProcessTests), MULTIPROCESS_STEPS steps each: ~13 s a seed of
#    25 steps on a quiet machine (40 seeds in ~9 min, 2026-11-25; 200 seeds: ~45 min).
# 4. CONVERGENCE_HISTORIES randomized 3-device sync histories against the real Kinto
#    (SyncConvergenceTests), CONVERGENCE_JOBS side by side: 1,000 took 1,282 s.
# 5. UNLOCK_RACE_RUNS races of a shared vault's unlock, a command beside it and a sync that brings a new epoch,
#    in process (NewEpochStressTests, no Kinto; `make test` runs 5): ~1.5 s a run; then as many with the real
#    screen, a real command and the real Kinto after someone left (ShareCommandTests.testAScreenAndACommand…;
#    `make test` runs 1): ~20 s a run.
# The whole target: about 7 h 20 min on two cores.
CRASH_SEEDS ?= 25
FAULT_SEEDS ?= 10
MULTIPROCESS_SEEDS ?= 1-200
MULTIPROCESS_STEPS ?= 25
CONVERGENCE_HISTORIES ?= 1000
CONVERGENCE_SEED ?= 20250611
CONVERGENCE_JOBS ?= 2
UNLOCK_RACE_RUNS ?= 50
reliability: deps
	$(SWIFT) build --build-tests
	@set -o pipefail; mkdir -p .build; status=0; \
	COFFER_CRASH_POINTS=all COFFER_CRASH_SEEDS=$(CRASH_SEEDS) Resources/scripts/with-kinto.sh \
		$(SWIFT) test --skip-build --filter CrashPointTests 2>&1 | tee .build/reliability.log || status=1; \
	COFFER_FAULT_STEPS=all COFFER_FAULT_SEEDS=$(FAULT_SEEDS) Resources/scripts/with-kinto.sh \
		$(SWIFT) test --skip-build --filter SyncFaultTests/testEveryFaultKindAtEveryStep 2>&1 \
		| tee -a .build/reliability.log || status=1; \
	COFFER_MULTIPROCESS_SEEDS=$(MULTIPROCESS_SEEDS) COFFER_MULTIPROCESS_STEPS=$(MULTIPROCESS_STEPS) \
		Resources/scripts/with-kinto.sh $(SWIFT) test --skip-build --filter MultiProcessTests 2>&1 \
		| tee -a .build/reliability.log || status=1; \
	COFFER_CONVERGENCE_HISTORIES=$(CONVERGENCE_HISTORIES) COFFER_CONVERGENCE_SEED=$(CONVERGENCE_SEED) \
		COFFER_CONVERGENCE_JOBS=$(CONVERGENCE_JOBS) Resources/scripts/with-kinto.sh \
		$(SWIFT) test --skip-build --filter SyncConvergenceTests 2>&1 | tee -a .build/reliability.log || status=1; \
	COFFER_UNLOCK_RACE_RUNS=$(UNLOCK_RACE_RUNS) $(SWIFT) test --skip-build --filter NewEpochStressTests 2>&1 \
		| tee -a .build/reliability.log || status=1; \
	COFFER_SCREEN_UNLOCK_RACE_RUNS=$(UNLOCK_RACE_RUNS) Resources/scripts/with-kinto.sh $(SWIFT) test --skip-build \
		--filter ShareCommandTests.testAScreenAndACommandUnlockingAfterSomeoneLeftNeverLockEachOtherOut 2>&1 \
		| tee -a .build/reliability.log || status=1; \
	echo; grep -a '^crash points:' .build/reliability.log | tail -1; \
	grep -a '^fault cells:' .build/reliability.log | tail -1; \
	grep -a '^multi-process runs:' .build/reliability.log | tail -1; \
	grep -a '^histories:' .build/reliability.log | tail -1; \
	grep -a '^unlock races:' .build/reliability.log | tail -1; \
	grep -a '^screen unlock races:' .build/reliability.log | tail -1; exit $$status

# libFuzzer + AddressSanitizer on the parsers (Sources/Fuzz*), each for FUZZ_SECONDS (default 60), or
# FUZZ_RUNS executions when given, from Resources/fuzz/<target> and a scratch corpus, in .build-fuzz;
# one table and a `fuzz:` summary line; fails on any crash.
fuzz: .deps-apt
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_RUNS=$(FUZZ_RUNS) SWIFT=$(SWIFT) Resources/scripts/fuzz.sh

# Performance figures beside keepassxc-cli and a raw Kinto client, as one Markdown table (also
# written to .build/bench.md). BENCH_SMALL=1 runs a quick version. Resources/bench/bench.py.
bench: deps
	@missing=$$(for p in keepassxc python3-pykeepass time; do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing: $$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi
	$(MAKE) release
	$(SWIFT) build $(RELEASE) --product CofferBench
	Resources/scripts/with-kinto.sh /usr/bin/python3 Resources/bench/bench.py

# How many idle devices (3 conditional GETs every 60 s each, a new connection per request, as `coffer sync`)
# one Kinto process on PostgreSQL serves with a sync's p99 ≤ 100 ms: Kinto and a private PostgreSQL cluster on
# loopback ports (Resources/scripts/with-kinto-postgresql.sh), N doubled until p99 passes, one Markdown table
# (also .build/bench-server.md). At most 15 minutes, no more than 12,800 devices on 100 accounts.
# BENCH_SERVER_INI=FILE runs another configuration; BENCH_SERVER_ARGS passes options to
# Resources/bench/bench_server.py (--help). On a machine shared with other work, BENCH_SERVER_NICE=-10 runs
# Kinto, PostgreSQL and the client ahead of it, closer to a server of their own (say so with the figures).
BENCH_SERVER_INI ?= Resources/kinto/postgresql.ini
bench-server: deps
	COFFER_KINTO_INI=$(abspath $(BENCH_SERVER_INI)) $(if $(BENCH_SERVER_NICE),nice -n $(BENCH_SERVER_NICE)) \
		Resources/scripts/with-kinto-postgresql.sh \
		timeout 900 /usr/bin/python3 Resources/bench/bench_server.py --budget-seconds 720 $(BENCH_SERVER_ARGS)

completions: build
	mkdir -p .build/completions
	$(BIN) --generate-completion-script bash > .build/completions/coffer.bash
	$(BIN) --generate-completion-script zsh > .build/completions/_coffer
	$(BIN) --generate-completion-script fish > .build/completions/coffer.fish

clean:
	rm -rf .build .deps-apt
