# nasd: thin wrapper over meson/ninja so that two commands do everything on a
# fresh Debian 12 machine (README.md). Targets install what they need.

BUILD ?= build
ASAN_BUILD ?= build-asan
STATE_DIR ?= /var/lib/nasd
DEB_PKGS = meson ninja-build gcc clang pkg-config libcmocka-dev libnfs-dev \
	libnfs-utils rpcbind libclang-rt-14-dev python3 procps iproute2 \
	cppcheck clang-tidy libssl-dev nettle-dev python3-impacket \
	python3-cryptography samba-testsuite smbclient nfs-common \
	ceph ceph-mds ceph-fuse libcephfs-dev

.PHONY: all deps build run test test-unit test-asan clean format fuzz

all: build

# Install missing Debian packages (only those absent, so repeat runs are fast).
# A policy-rc.d that exits 101 keeps the packages' daemons (samba-testsuite
# pulls in winbind and samba's libraries; ceph its daemons, which the
# CephFS test starts itself on a throwaway cluster) from being started; it is ours
# only when none existed, and removed afterwards. nfs-common gives
# ../shared/kclient the rpc.statd it copies into the guest for NFSv3 locking
# (the package's own binary is under /sbin, where run.sh's fallback does not look).
deps:
	@missing=""; for p in $(DEB_PKGS); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		export DEBIAN_FRONTEND=noninteractive; \
		rc=/usr/sbin/policy-rc.d; ours=; \
		if [ ! -e $$rc ]; then \
			printf '#!/bin/sh\nexit 101\n' >$$rc && chmod 755 $$rc && ours=1; \
		fi; \
		apt-get install -y -qq $$missing >/dev/null 2>&1 || \
		{ apt-get update -qq && apt-get install -y -qq $$missing; }; \
		st=$$?; [ -z "$$ours" ] || rm -f $$rc; exit $$st; \
	fi

$(BUILD)/build.ninja:
	meson setup $(BUILD)

# The CephFS backend is left out of the sanitizer build: its test runs
# in the normal build only (suite 'slow'), and LeakSanitizer would judge
# libcephfs's own allocations at exit.
$(ASAN_BUILD)/build.ninja:
	CC=clang meson setup $(ASAN_BUILD) -Db_sanitize=address,undefined \
		-Db_lundef=false -Dbuildtype=debug -Dceph=disabled

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

# Run the server in the foreground on the embedded default: a sample export
# under $(STATE_DIR) served on 127.0.0.1 (NFS/MOUNT 2049, MOUNT 20048,
# portmapper on 111 when no rpcbind is running; SMB share "export" on 445).
# The first run adds SMB user "sample" (uid/gid 65534, as root-squashed
# NFS clients write) with a random password kept in
# $(STATE_DIR)/sample-password (0600), and prints the smbclient line.
run: build
	@umask 077; mkdir -p $(STATE_DIR); \
	if [ ! -s $(STATE_DIR)/sample-password ]; then \
		pw=$$(head -c 12 /dev/urandom | base64 | tr -d '/+='); \
		echo "$$pw" | $(BUILD)/nasd user add sample --uid 65534 \
			--gid 65534 --state-dir $(STATE_DIR) && \
		echo "$$pw" >$(STATE_DIR)/sample-password; \
	fi; \
	echo "SMB: smbclient //127.0.0.1/export -U sample%$$(cat $(STATE_DIR)/sample-password)"
	$(BUILD)/nasd --foreground --portmap --state-dir $(STATE_DIR)

# The whole suite: unit + integration tests, built normally and under
# ASan+UBSan. Ends with a "N passed, N failed" line.
test: deps $(BUILD)/build.ninja $(ASAN_BUILD)/build.ninja
	ninja -C $(BUILD)
	ninja -C $(ASAN_BUILD)
	tests/run-all.sh $(BUILD) $(ASAN_BUILD)

# libFuzzer targets (tests/fuzz): build build-fuzz (clang, ASan+UBSan) and
# run each for FUZZ_SECONDS on a scratch copy of its seed corpus.
FUZZ_SECONDS ?= 60
fuzz: deps
	tests/fuzz/run.sh $(FUZZ_SECONDS)

# cppcheck and clang-tidy (.clang-tidy) over the sources: tests/static/run.sh.
.PHONY: static
static: deps
	tests/static/run.sh

# nasd and NFS-Ganesha side by side with nasd-bench (bench/compare.sh;
# installs nfs-ganesha if missing; results in docs/PERFORMANCE.md's form),
# then nasd's CephFS backend against Ganesha's FSAL_CEPH on a one-node
# Ceph (bench/compare_ceph.sh; installs nfs-ganesha-ceph if missing).
.PHONY: bench
bench: build
	bench/compare.sh --build $(BUILD)
	bench/compare_ceph.sh --build $(BUILD)

# The CephFS backend against Ganesha's FSAL_CEPH on a one-node Ceph alone.
.PHONY: bench-ceph
bench-ceph: build
	bench/compare_ceph.sh --build $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)

format:
	clang-format -i $$(git ls-files 'src/*.[ch]' 'tests/*.[ch]')
