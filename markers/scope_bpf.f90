! Region markers for Fortran: call scope_bpf_begin("solve") ... call scope_bpf_end("solve").
!
! A module over libscope_bpf_markers (link -lscope_bpf_markers, see
! pkg-config scope_bpf or CMake's scope_bpf::markers). Any character
! expression works as a name, literal or not; trailing blanks are not part
! of it (as everywhere in Fortran), so a name needs no trailing NUL. The
! calls pair by name, like SCOPE_BPF_BEGIN/END in C: regions of one thread
! must nest. A blank name does nothing; names are cut to 127 bytes.
! Untraced, a marker costs two calls and one load. See docs/MARKERS.md.
module scope_bpf
   use, intrinsic :: iso_c_binding, only: c_char, c_size_t
   implicit none
   private
   public :: scope_bpf_begin, scope_bpf_end

   interface
      subroutine begin_named_n(name, length) bind(C, name="scope_bpf_begin_named_n")
         import :: c_char, c_size_t
         character(kind=c_char), intent(in) :: name(*)
         integer(c_size_t), value :: length
      end subroutine begin_named_n

      subroutine end_named_n(name, length) bind(C, name="scope_bpf_end_named_n")
         import :: c_char, c_size_t
         character(kind=c_char), intent(in) :: name(*)
         integer(c_size_t), value :: length
      end subroutine end_named_n
   end interface

contains

   ! A region named name begins on this thread.
   subroutine scope_bpf_begin(name)
      character(len=*), intent(in) :: name

      call begin_named_n(name, int(len_trim(name), c_size_t))
   end subroutine scope_bpf_begin

   ! The innermost open region named name ends on this thread.
   subroutine scope_bpf_end(name)
      character(len=*), intent(in) :: name

      call end_named_n(name, int(len_trim(name), c_size_t))
   end subroutine scope_bpf_end
end module scope_bpf
