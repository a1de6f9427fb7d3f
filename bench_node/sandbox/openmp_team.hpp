#pragma once
// The candidate's OpenMP threads are placed before its filter goes on. The filters make
// sched_setaffinity succeed without effect (a thread could otherwise widen its CPUs to the
// whole node, or move another process's threads), so OMP_PROC_BIND's pinning must happen
// while the call still works: libgomp pins its first thread when it is loaded, and the
// executor starts its team of OMP_NUM_THREADS here. libgomp keeps that team for later
// parallel regions; a thread it creates after the filter keeps its creator's CPUs.
namespace hpcreward {

// Runs one empty parallel region with libgomp's default team when libgomp is loaded (the
// candidate uses OpenMP); nothing otherwise. Never calls into the candidate's object: the
// entry point is looked up in libgomp itself.
void start_openmp_team();

}  // namespace hpcreward
