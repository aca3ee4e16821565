# scope-bpf: one entry point. make | make check | make demo | make bench | make install
# (make uninstall, make dist: packaging/packaging.mk)
# V=1 shows the commands. Generated files go to $(BUILD), never beside sources.

BUILD ?= build
PREFIX ?= /usr/local
MULTIARCH := $(shell $(CC) -dumpmachine 2>/dev/null)
ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')

CC ?= cc
CLANG ?= clang
BPFTOOL ?= bpftool
PKGS := hdf5 libbpf libelf libdw

ifeq ($(V),1)
Q :=
msg =
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

WARN := -Wall -Wextra -Werror
CFLAGS ?= -O2 -g
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
ifeq ($(SAN),1)
CFLAGS += $(SAN_FLAGS)
LDFLAGS += $(SAN_FLAGS)
endif
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
ALL_CFLAGS = -std=gnu11 $(WARN) $(CFLAGS) -D_GNU_SOURCE -Iinclude -Ibpf -Iuser -I$(BUILD) $(PKG_CFLAGS)
# -lstdc++: libstdc++'s demangler for kernel names (util/demangle.c).
LIBS = $(PKG_LIBS) -lpfm -lz -lm -lstdc++

BPF_SRCS := $(wildcard bpf/*.bpf.c)
SKELS := $(patsubst bpf/%.bpf.c,$(BUILD)/%.skel.h,$(BPF_SRCS))
USER_SRCS := $(shell find user -name '*.c')
USER_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(USER_SRCS))
LIB_OBJS := $(filter-out $(BUILD)/user/cmd/main.o,$(USER_OBJS))
UNIT_SRCS := $(shell find tests/unit -name 'test_*.c')
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(UNIT_SRCS))
INTEG_SRCS := $(wildcard tests/integration/test_*.c)
INTEG_BINS := $(patsubst tests/integration/%.c,$(BUILD)/tests/integration/%,$(INTEG_SRCS))
APP_SRCS := $(wildcard tests/apps/*.c tests/apps/*.cc)
APP_BINS := $(patsubst tests/apps/%,$(BUILD)/apps/%,$(basename $(APP_SRCS)))

.SECONDARY:
.PHONY: all deps check unit asan integration header-check demo bench install clean
all: $(BUILD)/scope-bpf

deps:
	$(Q)tools/install-deps.sh

$(BUILD)/bpf/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h) vmlinux/$(ARCH)/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CLANG) -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) $(WARN) -Wno-unused-parameter \
		-Ivmlinux/$(ARCH) -Ibpf -I/usr/include/$(MULTIARCH) -c $< -o $(@:.o=.tmp.o)
	$(Q)$(BPFTOOL) gen object $@ $(@:.o=.tmp.o)

$(BUILD)/%.skel.h: $(BUILD)/bpf/%.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf > $@

$(BUILD)/%.o: %.c | $(SKELS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/libscope.a: $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/scope-bpf: $(BUILD)/user/cmd/main.o $(BUILD)/libscope.a
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LIBS) -o $@

$(BUILD)/tests/unit/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(BUILD)/libscope.a
	$(call msg,TEST,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -Itests/unit $(LDFLAGS) $< $(BUILD)/libscope.a $(LIBS) -lcmocka -o $@

$(BUILD)/tests/integration/%: tests/integration/%.c tests/integration/harness.h $(BUILD)/libscope.a
	$(call msg,TEST,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -Itests $(LDFLAGS) $< $(BUILD)/libscope.a $(LIBS) -lcmocka -o $@

-include tests/apps/apps.mk
-include tests/tools/tools.mk
-include tests/fuzz/fuzz.mk
-include user/render/html/html.mk
-include tests/bench/bench.mk
-include ompt/ompt.mk
-include cupti/cupti.mk
-include markers/markers.mk
-include packaging/packaging.mk

unit: $(UNIT_BINS)
	$(Q)set -e; for t in $(UNIT_BINS); do echo "== $$t"; $$t; done

asan:
	$(Q)$(MAKE) --no-print-directory BUILD=build/asan SAN=1 unit

integration: $(BUILD)/scope-bpf $(INTEG_BINS) $(APP_BINS)
	$(Q)set -e; for t in $(INTEG_BINS); do echo "== $$t"; \
		SCOPE_BPF=$(BUILD)/scope-bpf APPS=$(BUILD)/apps $$t; done

check: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(MAKE) --no-print-directory header-check
	$(Q)$(MAKE) --no-print-directory unit
	$(Q)$(MAKE) --no-print-directory asan
	$(Q)$(MAKE) --no-print-directory integration
	$(Q)$(MAKE) --no-print-directory packaging-check

demo: deps
	$(Q)$(MAKE) --no-print-directory all $(BUILD)/apps/demo_heat
	$(Q)$(BUILD)/scope-bpf record -o $(BUILD)/demo.h5 -- $(BUILD)/apps/demo_heat
	$(Q)$(BUILD)/scope-bpf report $(BUILD)/demo.h5

header-check:
	$(Q)tools/header-check.sh $(BUILD)

bench: all
	$(Q)tools/bench.sh $(BUILD)

clean:
	rm -rf build

-include $(USER_OBJS:.o=.d)
