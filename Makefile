# SPDX-License-Identifier: MIT
# gpuscope - GNU make + pkg-config. The targets a person needs:
#   make            build build/gpuscope and the NVML simulator (build/sim/...)
#   make run        build (installing missing packages first) and start the main job
#   make test       the whole suite (unit, CLI, faults, sanitizers, fuzz); ends "N passed, N failed"
#   make bench      the benchmarks, printing the figures the issues ask for
#   make install    PREFIX=/usr/local DESTDIR=
# Variants: make BUILD=asan (AddressSanitizer + UBSan into build-asan/), WERROR=1.

BUILD ?= release
PREFIX ?= /usr/local
CC ?= cc
PKG_CONFIG ?= pkg-config

ifeq ($(BUILD),asan)
  O := build-asan
  SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
  OPTFLAGS := -O1 -g
else
  O := build
  SANFLAGS :=
  OPTFLAGS := -O2 -g
endif

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 \
        -Wundef -Wwrite-strings -Wno-format-nonliteral
ifeq ($(WERROR),1)
  WARN += -Werror
endif

# The core binary links only jansson; heavy libraries belong to the modules
# of the subcommands that need them (src/core/module.h explains why).
PKGS := jansson
PKGS_serve := libmicrohttpd
PKGS_top := ncursesw
PKGS_record := sqlite3
PKGS_watch := libcurl
ALL_PKGS := $(PKGS) $(PKGS_serve) $(PKGS_top) $(PKGS_record) $(PKGS_watch)
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(ALL_PKGS) 2>/dev/null)
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
LIBS_serve := $(shell $(PKG_CONFIG) --libs $(PKGS_serve) 2>/dev/null) -lcrypt
LIBS_top := $(shell $(PKG_CONFIG) --libs $(PKGS_top) 2>/dev/null)
LIBS_record := $(shell $(PKG_CONFIG) --libs $(PKGS_record) 2>/dev/null)
LIBS_watch := $(shell $(PKG_CONFIG) --libs $(PKGS_watch) 2>/dev/null)
MOD_LIBS_ALL := $(LIBS_serve) $(LIBS_top) $(LIBS_record) $(LIBS_watch)

CPPFLAGS += -Isrc -D_GNU_SOURCE -DGS_PREFIX='"$(PREFIX)"'
CFLAGS_ALL := -std=c11 $(OPTFLAGS) $(WARN) $(SANFLAGS) -fPIC $(PKG_CFLAGS) $(CFLAGS)
LDLIBS_ALL := $(PKG_LIBS) -ldl -lpthread -lm $(LDLIBS)
# Tests, benchmarks and fuzzers link everything, modules included.
LDLIBS_TEST := $(PKG_LIBS) $(MOD_LIBS_ALL) -ldl -lpthread -lm $(LDLIBS)

# --- sources: every .c under src/ is part of the tool; main.c only of the binary.
# Modules (src/core/module.h says why): the commands that need a heavy library.
#   serve.so  src/serve/ + src/cmd/serve.c                      libmicrohttpd
#   top.so    src/ui/ + src/cmd/top.c                           ncursesw
#   record.so src/record/ + src/cmd/{record,report,run,mark,baseline}.c   sqlite3
#   watch.so  src/notify/ + src/cmd/watch.c                     libcurl
MODULES := serve top record watch
modsrc = $(sort $(shell find $(1) -name '*.c' 2>/dev/null) $(wildcard $(2)))
MOD_SRC_serve := $(call modsrc,src/serve,src/cmd/serve.c)
MOD_SRC_top := $(call modsrc,src/ui,src/cmd/top.c)
MOD_SRC_record := $(call modsrc,src/record,$(addprefix src/cmd/,record.c report.c run.c mark.c baseline.c))
MOD_SRC_watch := $(call modsrc,src/notify,src/cmd/watch.c)
SRC := $(shell find src -name '*.c' | sort)
OBJ := $(SRC:%.c=$(O)/obj/%.o)
MOD_OBJ := $(foreach m,$(MODULES),$(MOD_SRC_$(m):%.c=$(O)/obj/%.o))
CORE_OBJ := $(filter-out $(MOD_OBJ),$(OBJ))
LIB_OBJ := $(filter-out $(O)/obj/src/main.o,$(OBJ))
MOD_LIBS := $(foreach m,$(MODULES),$(if $(MOD_SRC_$(m)),$(O)/modules/$(m).so))

# --- the NVML simulator: one shared library per driver profile (sim/profiles/*.map)
SIM_SRC := $(shell find sim -name '*.c' | sort)
SIM_OBJ := $(SIM_SRC:%.c=$(O)/obj/%.o)
SIM_PARSER_SRC := $(wildcard sim/scenario*.c)
SIM_PROFILES := $(basename $(notdir $(wildcard sim/profiles/*.map)))
SIM_LIBS := $(SIM_PROFILES:%=$(O)/sim/%/libnvidia-ml.so.1)

# --- unit tests (cmocka): tests/unit/test_<module>.c, one executable each
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(O)/tests/%)
CMOCKA_LIBS := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null || echo -lcmocka)

# --- benchmarks helpers (C programs that link the tool's objects)
BENCH_SRC := $(wildcard bench/*.c)
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(O)/bench/%)

all: $(O)/gpuscope $(SIM_LIBS) $(MOD_LIBS)

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
$(O)/sim/%/libnvidia-ml.so.1: $(SIM_OBJ) sim/profiles/%.map
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -shared -Wl,-soname,libnvidia-ml.so.1 \
	    -Wl,--version-script=sim/profiles/$*.map -o $@ $(SIM_OBJ) -ldl -lpthread -lm
	ln -sf libnvidia-ml.so.1 $(dir $@)libnvidia-ml.so

$(O)/tests/%: tests/unit/%.c $(LIB_OBJ) $(filter $(O)/obj/sim/scenario%,$(SIM_OBJ))
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Isim -Itests/unit $(CFLAGS_ALL) -MMD -MP -MF $@.d -o $@ $(filter %.c %.o,$^) \
	    $(LDFLAGS) $(CMOCKA_LIBS) $(LDLIBS_TEST)

$(O)/bench/%: bench/%.c $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS_ALL) -MMD -MP -MF $@.d -o $@ $(filter %.c %.o,$^) $(LDFLAGS) $(LDLIBS_TEST)

unit: $(UNIT_BIN)
bench-bin: $(BENCH_BIN)

# --- fuzzing: clang + libFuzzer, fuzz/fuzz_<parser>.c
FUZZ_SRC := $(wildcard fuzz/fuzz_*.c)
FUZZ_BIN := $(FUZZ_SRC:fuzz/%.c=build-fuzz/%)
FUZZ_CC ?= clang
FUZZ_COMMON := -std=c11 -g -O1 -Isrc -Isim -D_GNU_SOURCE -DGS_PREFIX='"$(PREFIX)"' $(PKG_CFLAGS)
# The tool's sources are compiled once with coverage instrumentation; each
# harness links them (libFuzzer's main comes with -fsanitize=fuzzer).
FUZZ_OBJ := $(patsubst %.c,build-fuzz/obj/%.o,$(filter-out src/main.c,$(SRC)) $(SIM_PARSER_SRC))
build-fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_COMMON) -fsanitize=fuzzer-no-link,address,undefined -MMD -MP -c -o $@ $<
build-fuzz/%: fuzz/%.c $(FUZZ_OBJ)
	@mkdir -p build-fuzz
	$(FUZZ_CC) $(FUZZ_COMMON) -fsanitize=fuzzer,address,undefined -o $@ $^ \
	    $(PKG_LIBS) $(MOD_LIBS_ALL) -ldl -lpthread -lm
-include $(FUZZ_OBJ:.o=.d)
fuzz: $(FUZZ_BIN)

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

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/gpuscope/sim \
	    $(DESTDIR)$(PREFIX)/lib/gpuscope/modules $(DESTDIR)$(PREFIX)/share/gpuscope/scenarios
	install -m 755 $(O)/gpuscope $(DESTDIR)$(PREFIX)/bin/gpuscope
	install -m 755 $(MOD_LIBS) $(DESTDIR)$(PREFIX)/lib/gpuscope/modules/
	for p in $(SIM_PROFILES); do \
	    install -d $(DESTDIR)$(PREFIX)/lib/gpuscope/sim/$$p; \
	    install -m 755 $(O)/sim/$$p/libnvidia-ml.so.1 $(DESTDIR)$(PREFIX)/lib/gpuscope/sim/$$p/; \
	    ln -sf libnvidia-ml.so.1 $(DESTDIR)$(PREFIX)/lib/gpuscope/sim/$$p/libnvidia-ml.so; \
	done
	install -m 644 sim/scenarios/*.scn $(DESTDIR)$(PREFIX)/share/gpuscope/scenarios/

clean:
	rm -rf build build-asan build-fuzz

.PHONY: all unit bench-bin fuzz deps run test bench install clean
.DELETE_ON_ERROR:

-include $(OBJ:.o=.d) $(SIM_OBJ:.o=.d) $(UNIT_BIN:=.d) $(BENCH_BIN:=.d)
