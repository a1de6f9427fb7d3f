#pragma once
// Capabilities of an executor (the process a candidate runs in). A measurer marks itself
// non-dumpable; an executor run by root still holds CAP_SYS_PTRACE after execv and could read
// any process's memory through /proc/<pid>/mem (opening a file read-only is something the GPU
// seccomp filter cannot refuse: the CUDA driver opens files). Without capabilities it cannot
// open a non-dumpable process's memory, whoever runs it.
namespace hpcreward {

// Empties the effective, permitted and inheritable sets for good. False when capset fails.
bool drop_all_capabilities();

}  // namespace hpcreward
