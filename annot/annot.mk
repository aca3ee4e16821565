# What the annotation libraries share (annot/, docs/ANNOTATIONS.md); included by
# the top-level Makefile before nvtx/nvtx.mk, kokkos/kokkos.mk and itt/itt.mk.
#
# Each library is its own sources, annot/'s, and the runtime-named markers'
# object from libscope_bpf_markers.a, whose symbols stay hidden: the library
# exports only its API's entry points. -z nodelete: a thread's exit calls
# into the library (annot/annot.c), so it must never be unloaded.

ANNOT_SRCS := annot/annot.c annot/stack.c annot/tags.c
ANNOT_HDRS := annot/annot.h annot/stack.h annot/tags.h $(MARKER_HDRS)
ANNOT_CFLAGS = -std=gnu11 $(WARN) $(CFLAGS) -D_GNU_SOURCE -Iinclude -Iannot -fPIC \
	-fvisibility=hidden
ANNOT_LIB_DEPS := $(ANNOT_SRCS) $(ANNOT_HDRS) $(BUILD)/libscope_bpf_markers.a

# $(call annot_lib,EXTRA_CFLAGS): link $@ from the .c files among its prerequisites.
define annot_lib
	$(call msg,LIB,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(ANNOT_CFLAGS) $(1) -shared $(LDFLAGS) $(filter %.c,$^) \
		$(BUILD)/libscope_bpf_markers.a -Wl,--exclude-libs,ALL -Wl,-z,nodelete -pthread -o $@
endef

# $(call annot_install,LIB): make install puts it where record looks (bin/../lib/scope-bpf).
define annot_install
	install -D -m 0644 $(BUILD)/$(1) $(DESTDIR)$(PREFIX)/lib/scope-bpf/$(1)
endef

# The test apps' bench mode (tests/apps/pair_cost.h).
$(BUILD)/apps/nvtx_ranges $(BUILD)/apps/kokkos_tools $(BUILD)/apps/itt_tasks: tests/apps/pair_cost.h

UNIT_BINS += $(BUILD)/tests/annot/test_annot_stack

$(BUILD)/tests/annot/test_annot_stack: tests/annot/test_annot_stack.c annot/stack.c annot/stack.h
	$(call msg,TEST,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 $(WARN) $(CFLAGS) -Iannot $(LDFLAGS) $< annot/stack.c -pthread \
		-lcmocka -o $@
