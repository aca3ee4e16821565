! The Fortran program of the CMake packaging project: "from_fortran" twice.
program app
   use scope_bpf
   implicit none
   integer :: i

   do i = 1, 2
      call scope_bpf_begin("from_fortran")
      call scope_bpf_end("from_fortran")
   end do
end program app
