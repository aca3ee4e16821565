# Build rules for the make bench programs in tests/bench; included by the top-level Makefile.
#
# marker_loop and marker_loop_plain are one loop with and without markers
# (-DSCOPE_BPF_DISABLE); empty_tracer runs a command with the empty
# programs of bpf/bench_empty.bpf.c on its probes; peakrss reports a
# command's peak RSS; compute_loop is fixed work for the sampling overhead;
# gen_profile writes the large profile that report and export are timed on;
# many_sites has 80 probes for the detach timing; mpi_pingpong (built with
# MPICH's $(MPICC), tests/apps/apps.mk, where MPI is installed) times traced
# MPI calls against markers, mpi_floor.so two marker events around one MPI
# call from a preloaded library (mpi/mpi.mk adds the PMPI libraries); cuda_handoff fires the CUPTI library's batch
# probe with full batches (records/s through the hand-off); switch_pingpong
# times a context switch between two untraced threads on one CPU;
# uftrace_loop is marker_loop's loop with a function for a region, for uftrace;
# agg_replay sums a full trace's calls as record --aggregate does, to compare
# totals on the same calls. All go to $(BUILD)/bench and are built only for bench.

BENCH_CFLAGS := -O2 -g -fno-omit-frame-pointer -Wall -Wextra -Werror -Iinclude
BENCH_BPF_LIBS = $(shell pkg-config --libs libbpf libelf 2>/dev/null) -lz
BENCH_BINS := $(addprefix $(BUILD)/bench/,marker_loop marker_loop_plain empty_tracer peakrss compute_loop \
	gen_profile many_sites cuda_handoff fine_grained fast_flood switch_pingpong uftrace_loop \
	agg_replay)

# The MPI figure only where an MPI compiler is installed: bench.sh says when it is skipped.
ifneq ($(shell command -v $(MPICC) 2>/dev/null),)
BENCH_BINS += $(BUILD)/bench/mpi_pingpong $(BUILD)/bench/mpi_floor.so
endif

# waiter (tests/apps): the running process (m) attaches to.
bench: $(BENCH_BINS) $(BUILD)/apps/waiter

$(BUILD)/bench/mpi_pingpong: tests/bench/mpi_pingpong.c $(MARKER_HDRS)
	$(call msg,BENCH,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(MPICC) $(BENCH_CFLAGS) $< -o $@

$(BUILD)/bench/mpi_floor.so: tests/bench/mpi_floor.c $(MARKER_HDRS) $(BUILD)/libscope_bpf_markers.a
	$(call msg,BENCH,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(MPICC) $(BENCH_CFLAGS) -fPIC -shared -fvisibility=hidden -ftls-model=initial-exec $< \
		$(BUILD)/libscope_bpf_markers.a -Wl,--exclude-libs,ALL -o $@

$(BUILD)/bench/marker_loop: tests/bench/marker_loop.c tests/bench/loop_main.h $(MARKER_HDRS)
	$(call msg,BENCH,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(BENCH_CFLAGS) $< -o $@

# GCC's nop in place of the mcount call, which uftrace patches (it needs a non-PIE binary).
$(BUILD)/bench/uftrace_loop: tests/bench/uftrace_loop.c tests/bench/loop_main.h
	$(call msg,BENCH,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)gcc $(BENCH_CFLAGS) -fno-pie -no-pie -pg -mfentry -mnop-mcount $< -o $@

$(BUILD)/bench/marker_loop_plain: tests/bench/marker_loop.c tests/bench/loop_main.h $(MARKER_HDRS)
	$(call msg,BENCH,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(BENCH_CFLAGS) -DSCOPE_BPF_DISABLE $< -o $@

$(BUILD)/bench/empty_tracer: tests/bench/empty_tracer.c $(BUILD)/bench_empty.skel.h
	$(call msg,BENCH,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(BENCH_CFLAGS) -D_GNU_SOURCE -I$(BUILD) $< $(BENCH_BPF_LIBS) -o $@

$(BUILD)/bench/switch_pingpong: tests/bench/switch_pingpong.c
	$(call msg,BENCH,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(BENCH_CFLAGS) $< -lpthread -o $@

$(BUILD)/bench/peakrss: tests/bench/peakrss.c
	$(call msg,BENCH,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(BENCH_CFLAGS) $< -o $@

$(BUILD)/bench/compute_loop: tests/bench/compute_loop.c $(MARKER_HDRS)
	$(call msg,BENCH,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(BENCH_CFLAGS) $< -o $@

$(BUILD)/bench/gen_profile: tests/bench/gen_profile.c $(BUILD)/libscope.a
	$(call msg,BENCH,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) $< $(BUILD)/libscope.a $(LIBS) -o $@

$(BUILD)/bench/agg_replay: tests/bench/agg_replay.c $(BUILD)/libscope.a
	$(call msg,BENCH,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) $< $(BUILD)/libscope.a $(LIBS) -o $@

$(BUILD)/bench/many_sites: tests/bench/many_sites.c $(MARKER_HDRS)
	$(call msg,BENCH,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(BENCH_CFLAGS) $< -o $@

$(BUILD)/bench/cuda_handoff: tests/bench/cuda_handoff.c bpf/cuda_rec.h cupti/probes.h \
		include/scope_bpf/probe.h
	$(call msg,BENCH,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(BENCH_CFLAGS) -Ibpf -Icupti $< -o $@

$(BUILD)/bench/fine_grained: tests/bench/fine_grained.c $(MARKER_HDRS)
	$(call msg,BENCH,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(BENCH_CFLAGS) $< -o $@

$(BUILD)/bench/fast_flood: tests/apps/fast_flood.c $(MARKER_HDRS)
	$(call msg,BENCH,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(BENCH_CFLAGS) $< -pthread -o $@
