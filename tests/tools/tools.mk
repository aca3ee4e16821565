# Tools the integration tests run (tests/tools/*.c), built into $(BUILD)/tests/.
# sb_shift_clock rewrites a profile as if recorded on another node (merge's clock tests).

TOOL_SRCS := $(wildcard tests/tools/*.c)
TOOL_BINS := $(patsubst tests/tools/%.c,$(BUILD)/tests/%,$(TOOL_SRCS))

$(BUILD)/tests/%: tests/tools/%.c $(BUILD)/libscope.a
	$(call msg,TOOL,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) $< $(BUILD)/libscope.a $(LIBS) -o $@

integration: $(TOOL_BINS)
