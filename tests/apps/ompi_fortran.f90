! MPI test app for Open MPI's Fortran bindings (tests/integration/test_mpi_paths.c):
! the same calls through the mpi module (mpif.h's entry points, mpi_send_ ...)
! and through the mpi_f08 module (mpi_send_f08_ ...), whose names no C
! wrapper sees. Run with 2 ranks. Rank r, with p = 1 - r, in classic:
! MPI_Send and MPI_Recv of 100 doubles (800 bytes), tag 7 (rank 0 first);
! MPI_Sendrecv of 10 integers, tag 3; MPI_Irecv and MPI_Isend of 50 integers,
! tag 11, each completed by an MPI_Wait; MPI_Irecv and MPI_Isend of 1 double,
! tag 12, completed by one MPI_Waitall; MPI_Bcast of 4 integers from root 1;
! MPI_Reduce of 4 integers to root 0; MPI_Allreduce of 1 double, then in
! place; MPI_Gather of 2 integers to root 1; MPI_Alltoall of 3 integers each;
! MPI_Ibarrier completed by MPI_Wait; MPI_Barrier. In modern (mpi_f08):
! MPI_Send and MPI_Recv of 20 integers, tag 5; MPI_Isend and MPI_Irecv of 2
! doubles, tag 6, completed by MPI_Waitall; MPI_Allreduce of 3 doubles;
! MPI_Barrier. MPI_Init through mpi, MPI_Finalize through mpi_f08.
program ompi_fortran
  use mpi, only: mpi_init, mpi_comm_rank, mpi_comm_world
  implicit none
  integer :: rank, ierr

  call mpi_init(ierr)
  call mpi_comm_rank(mpi_comm_world, rank, ierr)
  call classic(rank)
  call modern(rank)
  call finish()
contains
  subroutine classic(rank)
    use mpi
    integer, intent(in) :: rank
    integer :: peer, ierr, req, reqs(2), ten(10), got10(10), fifty(50), got50(50)
    integer :: four(4), sum4(4), two(2), all2(4), three(6), got3(6)
    double precision :: out(100), in(100), x, y, one, got1
    integer :: statuses(MPI_STATUS_SIZE, 2)

    peer = 1 - rank
    out = 0; ten = 0; fifty = 0; four = 1; two = 0; three = 0; x = 1; one = rank
    if (rank == 0) call mpi_send(out, 100, MPI_DOUBLE_PRECISION, peer, 7, MPI_COMM_WORLD, ierr)
    call mpi_recv(in, 100, MPI_DOUBLE_PRECISION, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    if (rank == 1) call mpi_send(out, 100, MPI_DOUBLE_PRECISION, peer, 7, MPI_COMM_WORLD, ierr)
    call mpi_sendrecv(ten, 10, MPI_INTEGER, peer, 3, got10, 10, MPI_INTEGER, peer, 3, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call mpi_irecv(got50, 50, MPI_INTEGER, peer, 11, MPI_COMM_WORLD, reqs(1), ierr)
    call mpi_isend(fifty, 50, MPI_INTEGER, peer, 11, MPI_COMM_WORLD, req, ierr)
    call mpi_wait(req, MPI_STATUS_IGNORE, ierr)
    call mpi_wait(reqs(1), MPI_STATUS_IGNORE, ierr)
    call mpi_irecv(got1, 1, MPI_DOUBLE_PRECISION, peer, 12, MPI_COMM_WORLD, reqs(1), ierr)
    call mpi_isend(one, 1, MPI_DOUBLE_PRECISION, peer, 12, MPI_COMM_WORLD, reqs(2), ierr)
    call mpi_waitall(2, reqs, statuses, ierr)
    call mpi_bcast(four, 4, MPI_INTEGER, 1, MPI_COMM_WORLD, ierr)
    call mpi_reduce(four, sum4, 4, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
    call mpi_allreduce(x, y, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    call mpi_allreduce(MPI_IN_PLACE, y, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    call mpi_gather(two, 2, MPI_INTEGER, all2, 2, MPI_INTEGER, 1, MPI_COMM_WORLD, ierr)
    call mpi_alltoall(three, 3, MPI_INTEGER, got3, 3, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    call mpi_ibarrier(MPI_COMM_WORLD, req, ierr)
    call mpi_wait(req, MPI_STATUS_IGNORE, ierr)
    call mpi_barrier(MPI_COMM_WORLD, ierr)
  end subroutine classic

  subroutine modern(rank)
    use mpi_f08
    integer, intent(in) :: rank
    integer :: peer, twenty(20), got20(20)
    double precision :: pair(2), gotpair(2), three(3), sum3(3)
    type(MPI_Request) :: reqs(2)

    peer = 1 - rank
    twenty = 0; pair = rank; three = 1
    if (rank == 0) call MPI_Send(twenty, 20, MPI_INTEGER, peer, 5, MPI_COMM_WORLD)
    call MPI_Recv(got20, 20, MPI_INTEGER, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    if (rank == 1) call MPI_Send(twenty, 20, MPI_INTEGER, peer, 5, MPI_COMM_WORLD)
    call MPI_Isend(pair, 2, MPI_DOUBLE_PRECISION, peer, 6, MPI_COMM_WORLD, reqs(1))
    call MPI_Irecv(gotpair, 2, MPI_DOUBLE_PRECISION, peer, 6, MPI_COMM_WORLD, reqs(2))
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
    call MPI_Allreduce(three, sum3, 3, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
    call MPI_Barrier(MPI_COMM_WORLD)
  end subroutine modern

  subroutine finish()
    use mpi_f08, only: MPI_Finalize
    call MPI_Finalize()
  end subroutine finish
end program ompi_fortran
