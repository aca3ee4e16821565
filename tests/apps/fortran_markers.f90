! Test app: Fortran regions through the scope_bpf module (markers/scope_bpf.f90).
!
! A tracer must see "solve" 3 times at top level; in each, "step" 4 times;
! in each step, "halo" once. "step" comes from a literal; "halo" from a
! blank-padded variable, whose trailing blanks are not part of the name.
program fortran_markers
   use scope_bpf
   implicit none
   character(len=16) :: halo = "halo"
   integer :: i, j

   do i = 1, 3
      call scope_bpf_begin("solve")
      do j = 1, 4
         call scope_bpf_begin("step")
         call scope_bpf_begin(halo)
         call spin()
         call scope_bpf_end(halo)
         call scope_bpf_end("step")
      end do
      call scope_bpf_end("solve")
   end do

contains

   ! About a millisecond of work, so each region lasts well over a probe's cost.
   subroutine spin()
      integer(8) :: t0, t, rate

      call system_clock(t0, rate)
      do
         call system_clock(t)
         if ((t - t0) * 1000 >= rate) exit
      end do
   end subroutine spin
end program fortran_markers
