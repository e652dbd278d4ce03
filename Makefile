# SPDX-License-Identifier: MIT
# gpuscope - GNU make + pkg-config. The targets a person needs:
#   make            build build/gpuscope and the NVML simulator (build/sim/...)
#   make run        build (installing missing packages first) and start the main job
#   make test       the whole suite (unit, CLI, faults, sanitizers, fuzz); ends "N passed, N failed"
#   make bench      the benchmarks, printing the figures the issues ask for
#   make install    PREFIX=/usr/local DESTDIR= (make uninstall: the same list, removed)
#   make gen        man pages' OPTIONS and completions/ from the option tables (after changing one)
# Variants: make BUILD=asan (AddressSanitizer + UBSan into build-asan/), BUILD=debug
# (-O0, asserts, build-debug/), WERROR=1; make testing: the test-only hooks (below).

BUILD ?= release
PREFIX ?= /usr/local
CC ?= cc
PKG_CONFIG ?= pkg-config
# The Python module (python/gpuscope) goes where Debian's python3 looks for
# $(PREFIX) installs: /usr/local/lib/python3.N/dist-packages.
PYTHON3 ?= $(firstword $(wildcard /usr/bin/python3) python3)
PYTHON_SITE ?= $(PREFIX)/lib/python3.$(shell $(PYTHON3) -c 'import sys; print(sys.version_info[1])' 2>/dev/null)/dist-packages

# Invariants are assert()s (sqlite's habit): checked in the asan and debug builds,
# compiled out of the release build (-DNDEBUG), which is what gets installed.
ifeq ($(BUILD),asan)
  O := build-asan
  SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
  OPTFLAGS := -O1 -g
else ifeq ($(BUILD),debug)
  O := build-debug
  SANFLAGS :=
  OPTFLAGS := -O0 -g
else
  O := build
  SANFLAGS :=
  OPTFLAGS := -O2 -g -DNDEBUG
endif

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 \
        -Wundef -Wwrite-strings
ifeq ($(WERROR),1)
  WARN += -Werror
endif

# The core binary links only jansson; heavy libraries belong to the modules
# of the subcommands that need them (src/core/module.h explains why).
PKGS := jansson
PKGS_serve := libmicrohttpd libprotobuf-c libnghttp2 gnutls
PKGS_top := ncursesw
PKGS_record := sqlite3 libprotobuf-c snappy libcurl yaml-0.1
PKGS_watch := libcurl
PKGS_smixml := libxml-2.0
PKGS_fleet := libcurl yaml-0.1
ALL_PKGS := $(PKGS) $(PKGS_serve) $(PKGS_top) $(PKGS_record) $(PKGS_watch) $(PKGS_smixml) $(PKGS_fleet)
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(ALL_PKGS) 2>/dev/null)
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
LIBS_serve := $(shell $(PKG_CONFIG) --libs $(PKGS_serve) 2>/dev/null) -lcrypt
LIBS_top := $(shell $(PKG_CONFIG) --libs $(PKGS_top) 2>/dev/null)
LIBS_record := $(shell $(PKG_CONFIG) --libs $(PKGS_record) 2>/dev/null)
LIBS_watch := $(shell $(PKG_CONFIG) --libs $(PKGS_watch) 2>/dev/null)
LIBS_smixml := $(shell $(PKG_CONFIG) --libs $(PKGS_smixml) 2>/dev/null)
LIBS_fleet := $(shell $(PKG_CONFIG) --libs $(PKGS_fleet) 2>/dev/null)
MOD_LIBS_ALL := $(LIBS_serve) $(LIBS_top) $(LIBS_record) $(LIBS_watch) $(LIBS_smixml) $(LIBS_fleet)

CPPFLAGS += -Isrc -I$(GEN) -D_GNU_SOURCE -DGS_PREFIX='"$(PREFIX)"'
CFLAGS_ALL := -std=c11 $(OPTFLAGS) $(WARN) $(SANFLAGS) -fPIC $(PKG_CFLAGS) $(CFLAGS)
LDLIBS_ALL := $(PKG_LIBS) -ldl -lpthread -lm $(LDLIBS)
# The option tables (src/cmd/opts.h) are positional rows that name the fields a row
# needs; C makes the rest zero, and -Wextra's missing-field-initializers would flag
# every such row. Only for the commands and main.c, where the tables are.
$(O)/obj/src/cmd/%.o $(O)/obj-testing/src/cmd/%.o $(O)/obj/src/main.o: CFLAGS_ALL += -Wno-missing-field-initializers
# Tests, benchmarks and fuzzers link everything, modules included.
LDLIBS_TEST := $(PKG_LIBS) $(MOD_LIBS_ALL) -ldl -lpthread -lm $(LDLIBS)

# --- sources: every .c under src/ is part of the tool; main.c only of the binary.
# Modules (src/core/module.h says why): the commands that need a heavy library.
#   serve.so  src/serve/ + src/k8s/ + src/cmd/serve.c          libmicrohttpd, protobuf-c, nghttp2, GnuTLS
#   top.so    src/ui/ + src/cmd/top.c                           ncursesw
#   record.so src/record/ + src/cmd/{record,report,run,mark,baseline,slurm}.c   sqlite3; remote write:
#             protobuf-c, snappy (C++ inside: libsnappy.so carries libstdc++), libcurl, libyaml;
#   watch.so  src/notify/ + src/cmd/watch.c                     libcurl
#   smixml.so src/smixml/ (gpuscope smi -q -x)                  libxml2
#   fleet.so  src/backend/prom/ + src/fleet/ (--prometheus: the fleet)  libcurl, libyaml
MODULES := serve top record watch smixml fleet
# The kubelet's pod-resources messages (src/k8s/podresources.proto): protoc-c writes
# their C at build time into $(GEN), shared by every build variant (the .proto is the
# source; nothing generated is committed, so it cannot drift from it).
GEN := build/gen
PROTO_C := $(GEN)/k8s/podresources.pb-c.c
# Prometheus remote write's WriteRequest (src/record/remote.proto), the same way.
RW_PROTO_C := $(GEN)/record/remote.pb-c.c
# Every module also links its ABI stamp (src/abi/module_stamp.c, core/abi.h), never the binary.
modsrc = $(sort $(shell find $(1) -name '*.c' 2>/dev/null) $(wildcard $(2))) src/abi/module_stamp.c
MOD_SRC_serve := $(call modsrc,src/serve src/k8s,src/cmd/serve.c) $(PROTO_C)
MOD_SRC_top := $(call modsrc,src/ui,src/cmd/top.c)
MOD_SRC_record := $(call modsrc,src/record,$(addprefix src/cmd/,record.c report.c run.c mark.c baseline.c slurm.c)) \
    src/backend/prom/http_config.c $(RW_PROTO_C)
MOD_SRC_watch := $(call modsrc,src/notify,src/cmd/watch.c)
MOD_SRC_smixml := $(call modsrc,src/smixml,)
MOD_SRC_fleet := $(call modsrc,src/backend/prom src/fleet,)
SRC := $(shell find src -name '*.c' | sort) $(PROTO_C) $(RW_PROTO_C)
OBJ := $(SRC:%.c=$(O)/obj/%.o)
MOD_OBJ := $(foreach m,$(MODULES),$(MOD_SRC_$(m):%.c=$(O)/obj/%.o))
CORE_OBJ := $(filter-out $(MOD_OBJ),$(OBJ))
LIB_OBJ := $(filter-out $(O)/obj/src/main.o,$(OBJ))
MOD_LIBS := $(foreach m,$(MODULES),$(if $(MOD_SRC_$(m)),$(O)/modules/$(m).so))
# The sources that hold test-only hooks (see "test-only hooks" below), and
# $(call tobj,OBJECTS): OBJECTS with those files' testing objects in their place.
TESTING_SRC := $(shell grep -l 'GS_TESTING' $(filter-out $(PROTO_C) $(RW_PROTO_C),$(SRC)) /dev/null)
TESTING_OBJ := $(TESTING_SRC:%.c=$(O)/obj/%.o)
tobj = $(filter-out $(TESTING_OBJ),$(1)) $(patsubst $(O)/obj/%,$(O)/obj-testing/%,$(filter $(TESTING_OBJ),$(1)))

# --- the NVML simulator: one shared library per driver profile (sim/profiles/*.map)
SIM_SRC := $(shell find sim -name '*.c' -not -path 'sim/drm/*' | sort)
SIM_OBJ := $(SIM_SRC:%.c=$(O)/obj/%.o)
SIM_PARSER_SRC := $(wildcard sim/scenario*.c)
SIM_PROFILES := $(basename $(notdir $(wildcard sim/profiles/*.map)))
SIM_LIBS := $(SIM_PROFILES:%=$(O)/sim/%/libnvidia-ml.so.1)
# --- the DRM simulator (sim/drm/): writes sysfs + procfs trees for amdgpu, i915 and xe,
# with the NVML simulator's expression language (the scenario parser files)
DRMSIM_SRC := $(sort $(wildcard sim/drm/*.c))
DRMSIM_OBJ := $(DRMSIM_SRC:%.c=$(O)/obj/%.o)
DRMSIM := $(O)/sim/drmsim
# --- the DRM simulator's cost model (sim/drm/cost/): a library benchmarks LD_PRELOAD into
# a process that reads a drmsim tree; built without the sanitizers (it is preloaded)
DRMCOST_LIB := $(O)/sim/libgsdrmcost.so

# --- the CUDA driver API simulator: build/sim/cuda/libcuda.so.1 from simcuda/, with the
# scenario parser and burn's CPU reference kernels (docs/SIMULATOR.md, "The CUDA simulator")
CUSIM_SRC := $(sort $(wildcard simcuda/*.c))
CUSIM_OBJ := $(CUSIM_SRC:%.c=$(O)/obj/%.o)
CUSIM_LIB := $(O)/sim/cuda/libcuda.so.1
$(CUSIM_OBJ): CPPFLAGS += -Isim

# --- unit tests (cmocka): tests/unit/test_<module>.c, one executable each
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(O)/tests/%)
CMOCKA_LIBS := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null || echo -lcmocka)

# --- benchmarks helpers (C programs that link the tool's objects)
BENCH_SRC := $(wildcard bench/*.c)
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(O)/bench/%)

all: $(O)/gpuscope $(SIM_LIBS) $(CUSIM_LIB) $(MOD_LIBS) $(DRMSIM) $(DRMCOST_LIB) $(O)/.pyhook-compiled

# The Python hook's bytecode beside it (python/hook/__pycache__, ignored by git): a hooked
# process then does not compile it at every start. Optional: without python3, nothing.
$(O)/.pyhook-compiled: $(wildcard python/hook/*.py)
	@mkdir -p $(dir $@)
	@if command -v python3 >/dev/null 2>&1; then python3 -m compileall -q python/hook >/dev/null || true; fi
	@touch $@

# -rdynamic: modules resolve the core's gs_* functions from the executable.
$(O)/gpuscope: $(CORE_OBJ)
	$(CC) $(CFLAGS_ALL) -rdynamic -o $@ $^ $(LDFLAGS) $(LDLIBS_ALL)

define module_rule
$(O)/modules/$(1).so: $(MOD_SRC_$(1):%.c=$(O)/obj/%.o)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CFLAGS_ALL) -shared -o $$@ $$^ $$(LDFLAGS) $$(LIBS_$(1)) -lpthread -lm
endef
$(foreach m,$(MODULES),$(eval $(call module_rule,$(m))))

$(O)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS_ALL) -MMD -MP -c -o $@ $<

# The simulator exports exactly the symbols its profile's version script lists.
# One explicit rule per profile, not a pattern rule: make treats the objects
# that only a pattern rule names as intermediate files and deletes them after
# each build, so every second `make` compiled the whole simulator again.
define sim_rule
$(O)/sim/$(1)/libnvidia-ml.so.1: $(SIM_OBJ) sim/profiles/$(1).map
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CFLAGS_ALL) -shared -Wl,-soname,libnvidia-ml.so.1 \
	    -Wl,--version-script=sim/profiles/$(1).map -o $$@ $(SIM_OBJ) $$(LDFLAGS) -ldl -lpthread -lm
	ln -sf libnvidia-ml.so.1 $$(dir $$@)libnvidia-ml.so
endef
$(foreach p,$(SIM_PROFILES),$(eval $(call sim_rule,$(p))))

$(DRMSIM): $(DRMSIM_OBJ) $(filter $(O)/obj/sim/scenario%,$(SIM_OBJ))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(LDFLAGS) -lm

$(DRMSIM_OBJ): CPPFLAGS += -Isim

$(DRMCOST_LIB): sim/drm/cost/drmcost.c sim/drm/cost/drmcost_env.c sim/drm/cost/drmcost.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -std=c11 $(OPTFLAGS) $(WARN) -fPIC $(CFLAGS) -shared -o $@ $(filter %.c,$^) \
	    $(LDFLAGS) -ldl -lpthread
# test_drm_cost checks the model's parsing in-process (the figures only, not the interposer)
$(O)/tests/test_drm_cost: $(O)/obj/sim/drm/cost/drmcost_env.o
# test_drm writes trees in-process with the simulator's writer (everything but its main)
$(O)/tests/test_drm: $(filter-out %/drmsim.o,$(DRMSIM_OBJ))

$(CUSIM_LIB): $(CUSIM_OBJ) $(filter $(O)/obj/sim/scenario%,$(SIM_OBJ)) $(O)/obj/src/burn/ref.o simcuda/libcuda.map
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -shared -Wl,-soname,libcuda.so.1 -Wl,--version-script=simcuda/libcuda.map \
	    -o $@ $(filter %.o,$^) $(LDFLAGS) -ldl -lpthread -lm

# Unit tests are test builds: compiled with GS_TESTING, linked with the hooks' objects.
$(O)/tests/%: tests/unit/%.c $(call tobj,$(LIB_OBJ)) $(filter $(O)/obj/sim/scenario%,$(SIM_OBJ))
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -DGS_TESTING -Isim -Itests/unit $(CFLAGS_ALL) -MMD -MP -MF $@.d -o $@ \
	    $(filter %.c %.o,$^) $(LDFLAGS) $(CMOCKA_LIBS) $(LDLIBS_TEST)

# --- test-only hooks (GS_TESTING) ---------------------------------------------------------
# Fault injection such as GPUSCOPE_RECORD_FAULT is not in the binary that is installed.
# A source file that holds such a hook says `#ifdef GS_TESTING`; only those files are
# compiled a second time, with -DGS_TESTING, into $(O)/obj-testing/, and `make testing`
# links $(O)/testing/gpuscope and $(O)/testing/modules/ from them and the release
# objects. CLI tests that need a hook say `build: testing` (tests/run-tests runs
# $(O)/testing/gpuscope for them); unit tests always link the testing objects.
# Never make a struct's layout depend on GS_TESTING: only some objects see it.
$(O)/obj-testing/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -DGS_TESTING $(CFLAGS_ALL) -MMD -MP -c -o $@ $<
$(O)/testing/gpuscope: $(call tobj,$(CORE_OBJ))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -rdynamic -o $@ $^ $(LDFLAGS) $(LDLIBS_ALL)
define testing_module_rule
$(O)/testing/modules/$(1).so: $(call tobj,$(MOD_SRC_$(1):%.c=$(O)/obj/%.o))
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CFLAGS_ALL) -shared -o $$@ $$^ $$(LDFLAGS) $$(LIBS_$(1)) -lpthread -lm
endef
$(foreach m,$(MODULES),$(eval $(call testing_module_rule,$(m))))
testing: $(O)/testing/gpuscope $(MOD_LIBS:$(O)/modules/%=$(O)/testing/modules/%)
-include $(TESTING_SRC:%.c=$(O)/obj-testing/%.d)

# The bare NVML client links nothing of gpuscope: it is the floor that one-shot
# queries are measured against (bench/oneshot.sh).
$(O)/bench/bare_client: bench/bare_client.c src/backend/nvidia/nvml_abi.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS_ALL) -o $@ $< $(LDFLAGS) -ldl

$(O)/bench/%: bench/%.c $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS_ALL) -MMD -MP -MF $@.d -o $@ $(filter %.c %.o,$^) $(LDFLAGS) $(LDLIBS_TEST)

unit: $(UNIT_BIN)
bench-bin: $(BENCH_BIN)

# --- fuzzing: clang + libFuzzer, fuzz/fuzz_<parser>.c
FUZZ_SRC := $(wildcard fuzz/fuzz_*.c)
FUZZ_BIN := $(FUZZ_SRC:fuzz/%.c=build-fuzz/%)
FUZZ_CC ?= clang
FUZZ_COMMON := -std=c11 -g -O1 -Isrc -Isim -I$(GEN) -D_GNU_SOURCE -DGS_PREFIX='"$(PREFIX)"' $(PKG_CFLAGS)
# The tool's sources are compiled once with coverage instrumentation; each
# harness links them (libFuzzer's main comes with -fsanitize=fuzzer).
FUZZ_OBJ := $(patsubst %.c,build-fuzz/obj/%.o,$(filter-out src/main.c,$(SRC)) $(SIM_PARSER_SRC))
build-fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_COMMON) -fsanitize=fuzzer-no-link,address,undefined -MMD -MP -c -o $@ $<
# A static pattern rule, as for the simulator above: objects that only a pattern rule
# names are intermediate files to make, deleted after each build, so the next change to
# any source compiled every instrumented object again.
$(FUZZ_BIN): build-fuzz/%: fuzz/%.c $(FUZZ_OBJ)
	@mkdir -p build-fuzz
	$(FUZZ_CC) $(FUZZ_COMMON) -fsanitize=fuzzer,address,undefined -o $@ $^ \
	    $(PKG_LIBS) $(MOD_LIBS_ALL) -ldl -lpthread -lm
# fuzz_drmsim_scn also links the DRM simulator (everything but its main)
DRMSIM_FUZZ_OBJ := $(patsubst %.c,build-fuzz/obj/%.o,$(filter-out sim/drm/drmsim.c,$(DRMSIM_SRC)))
build-fuzz/fuzz_drmsim_scn: $(DRMSIM_FUZZ_OBJ)
# fuzz_drm_cost links the DRM cost model's figure parser (not its interposer)
build-fuzz/fuzz_drm_cost: build-fuzz/obj/sim/drm/cost/drmcost_env.o
-include $(FUZZ_OBJ:.o=.d) $(DRMSIM_FUZZ_OBJ:.o=.d) build-fuzz/obj/sim/drm/cost/drmcost_env.d
fuzz: $(FUZZ_BIN)

# --- module ABI stamps (src/core/abi.h, src/abi/layout.h): a hash of the text of every header under src/,
# so that adding, changing or removing a header re-stamps the binary and every module.
# It is remade when a header is newer than it, or when the list of headers differs from
# the one it was made from ($(ABI_LIST): a header removed or renamed). Not on every make:
# a built tree then has nothing to do, which `make -q` can tell (tests/cli/0170).
ABI_HASH := $(GEN)/abi_hash.h
ABI_LIST := $(GEN)/abi_headers.list
ABI_HEADERS := $(shell find src -name '*.h' | LC_ALL=C sort)
ABI_HEADERS_WAS := $(shell cat $(ABI_LIST) 2>/dev/null)
$(ABI_HASH): $(ABI_HEADERS) $(if $(filter-out $(ABI_HEADERS),$(ABI_HEADERS_WAS))$(filter-out $(ABI_HEADERS_WAS),$(ABI_HEADERS)),FORCE)
	@mkdir -p $(GEN)
	@h=$$(cat $(ABI_HEADERS) | sha256sum | cut -c1-16); \
	printf '/* generated by make: the hash of the headers under src/ (src/core/abi.h) */\n#define GS_ABI_HEADERS "%s"\n' \
	    "$$h" > $@.tmp && mv $@.tmp $@
	@echo '$(ABI_HEADERS)' > $(ABI_LIST)
ABI_OBJ := src/abi/binary_stamp.o src/abi/module_stamp.o
$(ABI_OBJ:%=$(O)/obj/%) $(ABI_OBJ:%=build-fuzz/obj/%): $(ABI_HASH)
FORCE:

# --- the kubelet's pod-resources messages, generated (see GEN above)
$(GEN)/k8s/%.pb-c.c $(GEN)/k8s/%.pb-c.h: src/k8s/%.proto
	@mkdir -p $(GEN)/k8s
	protoc-c --proto_path=src/k8s --c_out=$(GEN)/k8s $<
# what includes the generated header needs it before its first compile
K8S_OBJ := $(patsubst %.c,%.o,$(wildcard src/k8s/*.c))
$(K8S_OBJ:%=$(O)/obj/%) $(K8S_OBJ:%=build-fuzz/obj/%) $(UNIT_BIN) $(FUZZ_BIN): | $(PROTO_C:.c=.h)
$(GEN)/record/%.pb-c.c $(GEN)/record/%.pb-c.h: src/record/%.proto
	@mkdir -p $(GEN)/record
	protoc-c --proto_path=src/record --c_out=$(GEN)/record $<
RW_OBJ := $(patsubst %.c,%.o,$(wildcard src/record/rw_*.c))
$(RW_OBJ:%=$(O)/obj/%) $(RW_OBJ:%=$(O)/obj-testing/%) $(RW_OBJ:%=build-fuzz/obj/%) $(UNIT_BIN) $(FUZZ_BIN): | $(RW_PROTO_C:.c=.h)

# --- what a person runs
deps:
	@scripts/deps.sh
run: deps
	@$(MAKE) --no-print-directory all
	@scripts/run-main.sh $(O)/gpuscope
test: deps
	@tests/run-tests
bench: deps
	@$(MAKE) --no-print-directory all bench-bin
	@bench/run

# --- install / uninstall: one list of what goes where (FHS paths under PREFIX, or the
# distribution's with PREFIX=/usr; DESTDIR stages). The binary finds its modules, simulator
# and scenarios under PREFIX/lib/gpuscope and PREFIX/share/gpuscope (src/core/paths.c),
# so those two are not configurable. `make uninstall` removes exactly this list, then the
# directories that are gpuscope's own. tests/install.sh stages both into a temporary DESTDIR.
BINDIR ?= $(PREFIX)/bin
GS_LIBDIR := $(PREFIX)/lib/gpuscope
GS_DATADIR := $(PREFIX)/share/gpuscope
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/gpuscope
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
# Debian's zsh reads vendor-completions under /usr, site-functions under /usr/local.
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/$(if $(filter /usr,$(PREFIX)),vendor-completions,site-functions)
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
PY_SRC := $(filter-out %/_config.py,$(wildcard python/gpuscope/*.py))
UNITS := $(wildcard deploy/systemd/*.service)
# MODE:SOURCE:DESTINATION, copied as they are
INSTALL_FILES = 755:$(O)/gpuscope:$(BINDIR)/gpuscope \
    $(foreach m,$(MOD_LIBS),755:$(m):$(GS_LIBDIR)/modules/$(notdir $(m))) \
    $(foreach p,$(SIM_PROFILES),755:$(O)/sim/$(p)/libnvidia-ml.so.1:$(GS_LIBDIR)/sim/$(p)/libnvidia-ml.so.1) \
    755:$(CUSIM_LIB):$(GS_LIBDIR)/sim/cuda/libcuda.so.1 \
    $(foreach f,$(wildcard sim/scenarios/*.scn),644:$(f):$(GS_DATADIR)/scenarios/$(notdir $(f))) \
    755:$(DRMSIM):$(GS_LIBDIR)/sim/drmsim \
    $(foreach f,$(wildcard sim/scenarios/*.drm),644:$(f):$(GS_DATADIR)/scenarios/$(notdir $(f))) \
    $(foreach f,$(wildcard man/*.1),644:$(f):$(MANDIR)/man1/$(notdir $(f))) \
    644:completions/gpuscope.bash:$(BASHCOMPDIR)/gpuscope \
    644:completions/_gpuscope:$(ZSHCOMPDIR)/_gpuscope \
    644:completions/gpuscope.fish:$(FISHCOMPDIR)/gpuscope.fish \
    $(foreach f,$(PY_SRC),644:$(f):$(PYTHON_SITE)/gpuscope/$(notdir $(f))) \
    $(foreach f,$(wildcard python/hook/*.py),644:$(f):$(GS_DATADIR)/python-hook/$(notdir $(f))) \
    644:LICENSE:$(DOCDIR)/LICENSE
# written at install time: the units run $(BINDIR)/gpuscope, the Python module knows it
INSTALL_UNITS = $(foreach u,$(UNITS),$(SYSTEMDUNITDIR)/$(notdir $(u)))
INSTALL_PYCONF = $(PYTHON_SITE)/gpuscope/_config.py
INSTALL_LINKS = $(foreach p,$(SIM_PROFILES),$(GS_LIBDIR)/sim/$(p)/libnvidia-ml.so)
# PYCOMPILE=0: no byte-compiled hook (the Debian package leaves that to the system)
PYCOMPILE ?= 1
INSTALL_OWN_DIRS = $(GS_LIBDIR) $(GS_DATADIR) $(PYTHON_SITE)/gpuscope $(DOCDIR)

install: all
	@set -e; for e in $(INSTALL_FILES); do \
	    m=$${e%%:*}; r=$${e#*:}; src=$${r%%:*}; dst=$(DESTDIR)$${r#*:}; \
	    install -D -m $$m "$$src" "$$dst"; echo "install $$dst"; \
	done
	@set -e; for u in $(UNITS); do \
	    dst=$(DESTDIR)$(SYSTEMDUNITDIR)/$$(basename $$u); install -d $$(dirname $$dst); \
	    sed 's|/usr/local/bin/gpuscope|$(BINDIR)/gpuscope|g' $$u > $$dst; chmod 644 $$dst; echo "install $$dst"; \
	done
	@printf '# written by make install: the binary this module runs\nGPUSCOPE_BIN = "%s"\n' \
	    '$(BINDIR)/gpuscope' > $(DESTDIR)$(INSTALL_PYCONF); echo "install $(DESTDIR)$(INSTALL_PYCONF)"
	@set -e; for l in $(INSTALL_LINKS); do \
	    ln -sf libnvidia-ml.so.1 $(DESTDIR)$$l; echo "link    $(DESTDIR)$$l"; \
	done
ifneq ($(PYCOMPILE),0)
	-python3 -m compileall -q -d $(GS_DATADIR)/python-hook $(DESTDIR)$(GS_DATADIR)/python-hook
endif

uninstall:
	@for e in $(INSTALL_FILES); do r=$${e#*:}; rm -f "$(DESTDIR)$${r#*:}"; done
	@rm -f $(foreach f,$(INSTALL_UNITS) $(INSTALL_PYCONF) $(INSTALL_LINKS),"$(DESTDIR)$(f)")
	@rm -rf "$(DESTDIR)$(PYTHON_SITE)/gpuscope/__pycache__" "$(DESTDIR)$(GS_DATADIR)/python-hook/__pycache__"
	@for d in $(INSTALL_OWN_DIRS); do \
	    [ -d "$(DESTDIR)$$d" ] && find "$(DESTDIR)$$d" -depth -type d -empty -delete; \
	    [ -e "$(DESTDIR)$$d" ] && echo "uninstall: $(DESTDIR)$$d holds files it did not install: kept" >&2; \
	done; true
	@echo "uninstalled gpuscope from $(DESTDIR)$(PREFIX)"

# The man pages' OPTIONS sections and completions/ from the option tables (src/cmd/opts.h):
# after adding or changing an option, `make gen`, then commit what it rewrote.
# tests/cli/0157 fails, naming the file, while the checked-in files differ from this.
gen: $(O)/gpuscope $(MOD_LIBS)
	$(PYTHON3) scripts/gen-cli --gpuscope $(O)/gpuscope

# --- the Debian package (debian/, dh): built by dpkg-buildpackage from a copy of the
# tree's sources in build/deb/src (the package never sees this tree's build outputs),
# then checked by lintian: no error and no warning (informational tags are shown).
# The .deb lands in build/deb/; tests/deb.sh installs and removes it in a scratch root.
DEB_DIR := build/deb
deb:
	rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)/src
	if [ -e .git ]; then git ls-files -co --exclude-standard; else find . -type f ! -path './build*'; fi | \
	    grep -v '^\./\?build' | tar -cf - -T - | tar -xf - -C $(DEB_DIR)/src
	cd $(DEB_DIR)/src && dpkg-buildpackage -us -uc -b
	lintian -I --fail-on error,warning $(DEB_DIR)/gpuscope_*.deb

clean:
	rm -rf build build-asan build-debug build-fuzz

.PHONY: all unit testing bench-bin fuzz deps run test bench install uninstall deb gen clean FORCE
.DELETE_ON_ERROR:

-include $(OBJ:.o=.d) $(SIM_OBJ:.o=.d) $(DRMSIM_OBJ:.o=.d) $(CUSIM_OBJ:.o=.d) $(UNIT_BIN:=.d) $(BENCH_BIN:=.d)
# Files an object takes in with the assembler's .incbin (the compiler's -MMD does not see them).
$(O)/obj/src/record/report_js.o build-fuzz/obj/src/record/report_js.o: src/record/report.js
