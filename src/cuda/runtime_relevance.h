// What of a file libclang's walk in runtime_gates.cc can turn into a finding, decided from tokens
// before any parse. The walk records a check only where it evaluates a capability: an expression
// cursor (a name, a member, a call) spelled with a capability name that is the operand of a
// comparison in an `if` condition or in a check call's arguments. Such a cursor is spelled by an
// identifier written there (or brought there by a macro of the file; class names reached through
// implicit constructions are the exception the file-wide fallback below covers). So a
// capability name is unread
// - where it only names a scope (`cutlass::arch::Sm90`, `GMMA::Major::K`), a namespace, a
//   declared type or template parameter, or the type of a declaration (`GMMA::Major tnspA`);
// - in a statement that holds no `if`, no check name (TORCH_CHECK, `"check"` as the first element
//   of an implicit construction), no macro of the file and no directive: a declaration
//   `int sm_major = 0;`, `cudaDeviceGetAttribute(&major, ...)`, `auto sm = Smem::init(raw);`.
//   Statements end at `;` and braces outside parentheses; what a brace group holds (a lambda, an
//   initialiser list) is a statement of its own, opaque to the walk's evaluator.
// The statement rule stands down for the whole file when its brackets do not balance, or it
// declares a type a construction could name unwritten (a check-named name that is not called,
// `struct Arch`). A file whose capability names are all unread needs no parse: on CUTLASS and
// FlashInfer, most of them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cuda/runtime_eval.h"
#include "cuda/tokens.h"

namespace archpatch::cuda {

// Byte offsets, in file order, of the capability names the walk may read: those of the code not
// unread (above), and every one inside a #define (its expansion may land anywhere). Comments,
// strings and the other directives (#include <cutlass/arch/...>, #if) hold none.
std::vector<size_t> ReadableCapabilityNames(std::string_view contents, const std::vector<Token>& tokens);
// The same with the code's view at hand (runtime_detail::MakeView(contents, tokens)).
std::vector<size_t> ReadableCapabilityNames(const runtime_detail::View& view, const std::vector<Token>& tokens);

// The file's bytes with the body of every function that holds none of `readable` (as
// ReadableCapabilityNames gives them) blanked, its directive lines aside (cuda/blank_bodies.h):
// clang then parses only what can hold a gate.
std::string BlankIrrelevantBodies(std::string_view contents, const std::vector<Token>& tokens,
                                  const std::vector<size_t>& readable);

}  // namespace archpatch::cuda
