# libFuzzer targets for the profile readers: make fuzz [FUZZ_SECONDS=60]; included by the top-level Makefile.
#
# Every tests/fuzz/fuzz_NAME.c becomes $(FUZZ_BUILD)/fuzz_NAME: clang with
# libFuzzer, ASan and UBSan, linked with the reader sources built again with
# coverage instrumentation. Each runs FUZZ_SECONDS seeded with
# tests/fuzz/corpus/NAME/; what it finds goes to $(FUZZ_BUILD)/corpus/NAME/,
# crashes to $(FUZZ_BUILD)/artifacts/. tests/fuzz/run.sh tells a crash inside
# libhdf5 (not ours to fix) from one in our code.

FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
FUZZ_BUILD := $(BUILD)/fuzz
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# SB_FUZZING: libFuzzer must see libhdf5's own crashes (run.sh sorts them), not the guard's exit.
FUZZ_CFLAGS = -std=gnu11 -Wall -Wextra -g -O1 $(FUZZ_SAN) -D_GNU_SOURCE -DSB_FUZZING -Iinclude \
	-Iuser $(PKG_CFLAGS)
# What the readers link: listed, so work in progress elsewhere cannot break the fuzz build.
FUZZ_LIB_SRCS := user/io/profile_read.c user/io/spt_read.c user/io/json_read.c user/util/json_parse.c \
	$(wildcard user/io/h5*.c) user/io/profile_wire.c user/model/model.c user/model/columns.c user/model/stats.c \
	user/model/index_rules.c user/model/aggregate.c user/util/hashmap.c user/util/error.c user/util/utf8.c \
	user/util/text_format.c user/analysis/calltree.c user/analysis/calltree_stream.c \
	user/analysis/calltree_agg.c \
	user/analysis/mpi_fns.c user/analysis/mpi_name.c user/io/tmpfile.c user/util/sudo.c
FUZZ_LIB_OBJS := $(patsubst %.c,$(FUZZ_BUILD)/%.o,$(FUZZ_LIB_SRCS))
FUZZ_NAMES := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS := $(patsubst %,$(FUZZ_BUILD)/fuzz_%,$(FUZZ_NAMES))

.PHONY: fuzz fuzz-build

$(FUZZ_BUILD)/user/%.o: user/%.c
	$(call msg,FUZZCC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_LIB_OBJS)
	$(call msg,FUZZLD,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $< $(FUZZ_LIB_OBJS) $(LIBS) -o $@

fuzz-build: $(FUZZ_BINS)

fuzz: fuzz-build
	$(Q)tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_NAMES)

-include $(FUZZ_LIB_OBJS:.o=.d)
