# The MPI interposition libraries (mpi/, docs/MPI.md "The PMPI path"); included
# by the top-level Makefile after annot/annot.mk.
#
# One library per MPI, its wrappers compiled against that MPI's mpi.h, found
# by its own compiler wrapper (mpicc.mpich, mpicc.openmpi, as tests/apps/apps.mk
# builds the test apps), and linked without the MPI library: a preloaded
# library loads in every process of the command (mpiexec, shells), and its
# PMPI_* calls bind, lazily, to the program's own MPI. Linked like the
# annotation libraries with the runtime-named markers, symbols hidden but the
# MPI_* entry points. An MPI that is not installed is left out with a line.

PMPI_SRCS := mpi/pmpi.c mpi/state.c mpi/reexec.c mpi/abi.c mpi/args.c mpi/wrappers.c \
	mpi/wrappers_rma_io.c user/record/sources/mpi_names.c
# Open MPI's Fortran bindings call PMPI_X (MPICH's call MPI_X): wrapped in its library only.
PMPI_FORTRAN_SRCS := mpi/wrappers_fortran.c
PMPI_HDRS := mpi/pmpi.h mpi/abi.h mpi/wrap.h user/record/sources/mpi_names.h bpf/region.h \
	$(MARKER_HDRS)
# initial-exec TLS: the library is loaded with the program (LD_PRELOAD), never by dlopen, so
# its thread variables (the markers' ring view among them) need no __tls_get_addr per event.
# -flto: a traced call's path crosses files (wrap.h's wrapper, args.c, abi.c, pmpi.c, the
# markers): inlined into one function, it costs two marker events and little more.
PMPI_CFLAGS = -std=gnu11 $(WARN) $(CFLAGS) -D_GNU_SOURCE -Iinclude -Impi -Ibpf -Iuser -fPIC \
	-fvisibility=hidden -ftls-model=initial-exec -flto=auto

# $(call pmpi_lib,MPICC_FLAGS[,MORE_SRCS]): the -I options of that MPI's wrapper, none of its
# link options.
define pmpi_lib
	$(call msg,LIB,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(filter -I%,$(1)) $(PMPI_CFLAGS) -shared $(LDFLAGS) $(PMPI_SRCS) $(2) $(BUILD)/libscope_bpf_markers.a \
		-Wl,--exclude-libs,ALL -Wl,-z,lazy -Wl,-z,nodelete -pthread -ldl -o $@.tmp
	$(Q)! readelf -d $@.tmp | grep -q 'NEEDED.*libmpi' || \
		{ echo "$@: linked with an MPI library" >&2; rm -f $@.tmp; exit 1; }
	$(Q)mv $@.tmp $@
endef

PMPI_LIBS :=
ifneq ($(shell command -v mpicc.mpich 2>/dev/null),)
PMPI_LIBS += $(BUILD)/libscope_bpf_mpi_mpich.so
$(BUILD)/libscope_bpf_mpi_mpich.so: $(PMPI_SRCS) $(PMPI_HDRS) $(BUILD)/libscope_bpf_markers.a
	$(call pmpi_lib,$(shell mpicc.mpich -show))
endif
ifneq ($(shell command -v mpicc.openmpi 2>/dev/null),)
PMPI_LIBS += $(BUILD)/libscope_bpf_mpi_openmpi.so
$(BUILD)/libscope_bpf_mpi_openmpi.so: $(PMPI_SRCS) $(PMPI_FORTRAN_SRCS) $(PMPI_HDRS) \
	$(BUILD)/libscope_bpf_markers.a
	$(call pmpi_lib,$(shell mpicc.openmpi -showme),$(PMPI_FORTRAN_SRCS))
endif

all: $(PMPI_LIBS)
bench: $(PMPI_LIBS)

install: install-pmpi
.PHONY: install-pmpi
install-pmpi: $(PMPI_LIBS)
	$(Q)for l in $(notdir $(PMPI_LIBS)); do \
		install -D -m 0644 $(BUILD)/$$l $(DESTDIR)$(PREFIX)/lib/scope-bpf/$$l; done

# The MPI tests record with the libraries (record's default when launching a job).
$(BUILD)/tests/integration/test_mpi_calls $(BUILD)/tests/integration/test_mpi_ranks \
$(BUILD)/tests/integration/test_ompi $(BUILD)/tests/integration/test_mpi_paths: | $(PMPI_LIBS)
