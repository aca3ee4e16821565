# Installing, uninstalling and the release tarball; included by the top-level
# Makefile. make install [PREFIX=/usr/local] [DESTDIR=...] puts:
#   bin/scope-bpf, include/scope_bpf.h and include/scope_bpf/ (the headers it includes),
#   lib/libscope_bpf_markers.{so,so.0,a},
#   lib/scope-bpf/libscope_bpf_{ompt,cupti,nvtx}.so (where built: ompt/ompt.mk, cupti/cupti.mk,
#   nvtx/nvtx.mk), lib/scope-bpf/libscope_bpf_{kokkos,itt}.so,
#   lib/scope-bpf/libscope_bpf_mpi_{mpich,openmpi}.so (where that MPI is: mpi/mpi.mk),
#   lib/scope-bpf/spank_scope_bpf.so, Slurm's plugin (where libslurm-dev is: slurm/slurm.mk),
#   lib/pkgconfig/scope_bpf.pc, lib/cmake/scope_bpf/ (find_package),
#   share/scope-bpf/fortran/scope_bpf.f90, man pages (share/man/man1), bash
#   completion, and the Python module scope_bpf.py where PYTHON looks (PYTHONDIR);
#   sbin/scope-bpfd, the node daemon, and its systemd units scope-bpfd.service and
#   scope-bpf.socket in SYSTEMDUNITDIR (docs/CLUSTERS.md).
# The man pages are made from the built binary's --help (packaging/gen-man.sh).

VERSION := $(shell sed -n 's/.*SCOPE_BPF_VERSION "\(.*\)"/\1/p' user/util/version.h)
BINDIR ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
INCLUDEDIR ?= $(PREFIX)/include
LIBDIR ?= $(PREFIX)/lib
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
# The Python module goes where the interpreter that will import it looks: its
# sysconfig purelib (a venv's or pyenv's site-packages, Debian's
# /usr/local/lib/python3.X/dist-packages), not under PREFIX, where none looks.
# Asked only when install or uninstall runs.
PYTHON ?= python3
PYTHONDIR ?= $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
python_dir = $(or $(PYTHONDIR),$(error $(PYTHON) did not say where its modules go: set PYTHON or PYTHONDIR))
COMPLETIONDIR ?= $(DATADIR)/bash-completion/completions
FORTRANDIR := $(DATADIR)/scope-bpf/fortran
CMAKEDIR := $(LIBDIR)/cmake/scope_bpf
# Where ompt.mk and cupti.mk install their libraries: record finds them at bin/../lib/scope-bpf.
HELPERDIR := $(PREFIX)/lib/scope-bpf
MAN_STAMP := $(BUILD)/man/.made
# The headers scope_bpf.h includes, installed in INCLUDEDIR/scope_bpf/.
MARKER_SUBHDRS := $(filter include/scope_bpf/%,$(MARKER_HDRS))

PACKAGING_SUBST = sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' \
	-e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@DATADIR@|$(DATADIR)|g' -e 's|@VERSION@|$(VERSION)|g'
# The CMake config finds the prefix from its own folder (relocatable): it is
# given the way there, and a folder under PREFIX relative to the prefix.
cmake_path = $(patsubst $(PREFIX)/%,$${_scope_bpf_prefix}/%,$(1))
CMAKE_SUBST = sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@CMAKEDIR@|$(CMAKEDIR)|g' \
	-e "s|@CMAKEDIR_TO_PREFIX@|$$(realpath -m -s --relative-to='$(CMAKEDIR)' '$(PREFIX)')|g" \
	-e 's|@INCLUDEDIR@|$(call cmake_path,$(INCLUDEDIR))|g' \
	-e 's|@LIBDIR@|$(call cmake_path,$(LIBDIR))|g' -e 's|@DATADIR@|$(call cmake_path,$(DATADIR))|g'

.PHONY: uninstall dist packaging-check
all: $(MAN_STAMP)

$(MAN_STAMP): $(BUILD)/scope-bpf packaging/gen-man.sh
	$(call msg,MAN,$(BUILD)/man)
	$(Q)rm -rf $(BUILD)/man && packaging/gen-man.sh $(BUILD)/scope-bpf $(BUILD)/man && touch $@

install: all
	install -D -m 0755 $(BUILD)/scope-bpf $(DESTDIR)$(BINDIR)/scope-bpf
	install -D -m 0644 include/scope_bpf.h $(DESTDIR)$(INCLUDEDIR)/scope_bpf.h
	install -D -m 0644 -t $(DESTDIR)$(INCLUDEDIR)/scope_bpf $(MARKER_SUBHDRS)
	install -D -m 0755 $(BUILD)/$(MARKERS_SONAME) $(DESTDIR)$(LIBDIR)/$(MARKERS_SONAME)
	ln -sf $(MARKERS_SONAME) $(DESTDIR)$(LIBDIR)/libscope_bpf_markers.so
	install -D -m 0644 $(BUILD)/libscope_bpf_markers.a $(DESTDIR)$(LIBDIR)/libscope_bpf_markers.a
	install -D -m 0644 markers/scope_bpf.f90 $(DESTDIR)$(FORTRANDIR)/scope_bpf.f90
	mkdir -p $(DESTDIR)$(python_dir) $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(CMAKEDIR)
	sed 's|^_INSTALLED_LIB = .*|_INSTALLED_LIB = "$(LIBDIR)/$(MARKERS_SONAME)"|' \
		markers/scope_bpf.py > $(DESTDIR)$(python_dir)/scope_bpf.py
	$(PACKAGING_SUBST) packaging/scope_bpf.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/scope_bpf.pc
	$(CMAKE_SUBST) packaging/scope_bpf-config.cmake.in > $(DESTDIR)$(CMAKEDIR)/scope_bpf-config.cmake
	$(PACKAGING_SUBST) packaging/scope_bpf-config-version.cmake.in \
		> $(DESTDIR)$(CMAKEDIR)/scope_bpf-config-version.cmake
	install -D -m 0644 -t $(DESTDIR)$(MANDIR)/man1 $(BUILD)/man/*.1
	install -D -m 0644 packaging/scope-bpf.bash $(DESTDIR)$(COMPLETIONDIR)/scope-bpf
	install -D -m 0755 $(BUILD)/scope-bpfd $(DESTDIR)$(SBINDIR)/scope-bpfd
	mkdir -p $(DESTDIR)$(SYSTEMDUNITDIR)
	sed 's|@SBINDIR@|$(SBINDIR)|g' packaging/scope-bpfd.service \
		> $(DESTDIR)$(SYSTEMDUNITDIR)/scope-bpfd.service
	install -m 0644 packaging/scope-bpf.socket $(DESTDIR)$(SYSTEMDUNITDIR)/scope-bpf.socket

# Removes what install put (and the module's bytecode, which Python writes
# beside it), and the folders only scope-bpf uses.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/scope-bpf $(DESTDIR)$(INCLUDEDIR)/scope_bpf.h \
		$(patsubst include/%,$(DESTDIR)$(INCLUDEDIR)/%,$(MARKER_SUBHDRS)) \
		$(DESTDIR)$(LIBDIR)/$(MARKERS_SONAME) $(DESTDIR)$(LIBDIR)/libscope_bpf_markers.so \
		$(DESTDIR)$(LIBDIR)/libscope_bpf_markers.a \
		$(DESTDIR)$(HELPERDIR)/libscope_bpf_cupti.so $(DESTDIR)$(HELPERDIR)/libscope_bpf_ompt.so \
		$(DESTDIR)$(HELPERDIR)/libscope_bpf_nvtx.so $(DESTDIR)$(HELPERDIR)/libscope_bpf_kokkos.so \
		$(DESTDIR)$(HELPERDIR)/libscope_bpf_itt.so \
		$(DESTDIR)$(HELPERDIR)/libscope_bpf_mpi_mpich.so \
		$(DESTDIR)$(HELPERDIR)/libscope_bpf_mpi_openmpi.so \
		$(DESTDIR)$(HELPERDIR)/spank_scope_bpf.so \
		$(DESTDIR)$(FORTRANDIR)/scope_bpf.f90 $(DESTDIR)$(python_dir)/scope_bpf.py \
		$(DESTDIR)$(python_dir)/__pycache__/scope_bpf.*.pyc \
		$(DESTDIR)$(LIBDIR)/pkgconfig/scope_bpf.pc \
		$(DESTDIR)$(CMAKEDIR)/scope_bpf-config.cmake \
		$(DESTDIR)$(CMAKEDIR)/scope_bpf-config-version.cmake \
		$(DESTDIR)$(MANDIR)/man1/scope-bpf.1 $(DESTDIR)$(MANDIR)/man1/scope-bpf-*.1 \
		$(DESTDIR)$(COMPLETIONDIR)/scope-bpf $(DESTDIR)$(SBINDIR)/scope-bpfd \
		$(DESTDIR)$(SYSTEMDUNITDIR)/scope-bpfd.service $(DESTDIR)$(SYSTEMDUNITDIR)/scope-bpf.socket
	rmdir $(DESTDIR)$(INCLUDEDIR)/scope_bpf $(DESTDIR)$(HELPERDIR) $(DESTDIR)$(FORTRANDIR) \
		$(DESTDIR)$(DATADIR)/scope-bpf $(DESTDIR)$(CMAKEDIR) 2>/dev/null || true

dist:
	$(Q)packaging/dist.sh $(VERSION) $(BUILD) $(BUILD)/scope-bpf-$(VERSION).tar.gz

# Installs into a temporary prefix and builds a CMake and a Makefile project against it.
packaging-check: all
	$(Q)tests/packaging/check.sh $(BUILD)
