#pragma once
// The checks on the candidate's syntax tree (parsed by clang after the include check, so it
// reads only allowed system headers). Only what is written in the candidate's own file
// counts - the code of the headers is trusted - and macros count where they are used.
//   - inline assembly: asm statements, file-scope asm, asm labels (also `register ... asm`)
//   - attributes outside C's allow-list (c_attribute_policy.hpp, read by attribute_rules.hpp)
//   - calls of a function declared without a definition in the file (a hand-written
//     prototype: `int fork(void);`, `void cblas_dgemm(...);`); the prototype alone reaches
//     nothing and passes. A function defined further down counts as defined, also when the
//     call comes before any declaration (implicitly declared).
//   - extern variable declarations (`extern char **environ;`)
//   - calls: call_policy.hpp; also calls of undeclared functions and through pointers
//   - the address of a function the file does not define, other than as a direct call's
//     callee (`(char *)memcpy + 0x1234` reaches any libc code)
//   - conversions to a function pointer from anything but a function or a null pointer
//     (an integer, a data pointer), and calls through function pointers: so no address
//     reaches a call but those of the file's own functions and the allowed library
//     functions (none of which takes a callback)
//   - computed goto (`goto *p` and `&&label`)
//   - external definitions with reserved names (__x, _X) or C library names (`char
//     **environ;` binds to the real one)
#include <clang-c/Index.h>

#include <vector>

#include "bench_node/source_checks/finding.hpp"

namespace hpcreward::source_checks {

std::vector<Finding> audit_ast(CXTranslationUnit unit);

}  // namespace hpcreward::source_checks
