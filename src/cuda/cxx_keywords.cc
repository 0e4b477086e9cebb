#include "cuda/cxx_keywords.h"

#include <algorithm>
#include <array>
#include <cstdint>

namespace archpatch::cuda {
namespace {

// What libclang 19 marks CXToken_Keyword under `-x c++ -std=c++20` (our former lexer's
// arguments): C++20's keywords, the alternative operator spellings, and clang's extension and
// type-trait keywords. Generated once from clang/Basic/*.def through clang_tokenize; the oracle
// test (cxx_lexer_oracle_test.cc) checks every word of TokenKinds.def against libclang again.
constexpr std::string_view kKeywords[] = {
    "_Alignas",
    "_Alignof",
    "_Atomic",
    "_BitInt",
    "_Complex",
    "_Decimal128",
    "_Decimal32",
    "_Decimal64",
    "_ExtInt",
    "_Float16",
    "_Generic",
    "_Imaginary",
    "_Nonnull",
    "_Noreturn",
    "_Null_unspecified",
    "_Nullable",
    "_Nullable_result",
    "_Static_assert",
    "_Thread_local",
    "__FUNCTION__",
    "__PRETTY_FUNCTION__",
    "__alignof",
    "__alignof__",
    "__array_extent",
    "__array_rank",
    "__asm",
    "__asm__",
    "__attribute",
    "__attribute__",
    "__auto_type",
    "__bf16",
    "__builtin_COLUMN",
    "__builtin_FILE",
    "__builtin_FILE_NAME",
    "__builtin_FUNCTION",
    "__builtin_LINE",
    "__builtin_available",
    "__builtin_bit_cast",
    "__builtin_choose_expr",
    "__builtin_convertvector",
    "__builtin_offsetof",
    "__builtin_omp_required_simd_align",
    "__builtin_ptrauth_type_discriminator",
    "__builtin_source_location",
    "__builtin_va_arg",
    "__builtin_vectorelements",
    "__can_pass_in_regs",
    "__cdecl",
    "__char16_t",
    "__char32_t",
    "__complex",
    "__complex__",
    "__const",
    "__const__",
    "__datasizeof",
    "__decltype",
    "__extension__",
    "__fastcall",
    "__float128",
    "__fp16",
    "__func__",
    "__funcref",
    "__has_nothrow_assign",
    "__has_nothrow_constructor",
    "__has_nothrow_copy",
    "__has_nothrow_move_assign",
    "__has_trivial_assign",
    "__has_trivial_constructor",
    "__has_trivial_copy",
    "__has_trivial_destructor",
    "__has_trivial_move_assign",
    "__has_trivial_move_constructor",
    "__has_unique_object_representations",
    "__has_virtual_destructor",
    "__ibm128",
    "__imag",
    "__imag__",
    "__inline",
    "__inline__",
    "__int128",
    "__is_abstract",
    "__is_aggregate",
    "__is_arithmetic",
    "__is_array",
    "__is_assignable",
    "__is_base_of",
    "__is_bitwise_cloneable",
    "__is_bounded_array",
    "__is_class",
    "__is_complete_type",
    "__is_compound",
    "__is_const",
    "__is_constructible",
    "__is_convertible",
    "__is_convertible_to",
    "__is_destructible",
    "__is_empty",
    "__is_enum",
    "__is_final",
    "__is_floating_point",
    "__is_function",
    "__is_fundamental",
    "__is_integral",
    "__is_layout_compatible",
    "__is_literal",
    "__is_literal_type",
    "__is_lvalue_expr",
    "__is_lvalue_reference",
    "__is_member_function_pointer",
    "__is_member_object_pointer",
    "__is_member_pointer",
    "__is_nothrow_assignable",
    "__is_nothrow_constructible",
    "__is_nothrow_convertible",
    "__is_nothrow_destructible",
    "__is_nullptr",
    "__is_object",
    "__is_pod",
    "__is_pointer",
    "__is_pointer_interconvertible_base_of",
    "__is_polymorphic",
    "__is_reference",
    "__is_referenceable",
    "__is_rvalue_expr",
    "__is_rvalue_reference",
    "__is_same",
    "__is_same_as",
    "__is_scalar",
    "__is_scoped_enum",
    "__is_signed",
    "__is_standard_layout",
    "__is_trivial",
    "__is_trivially_assignable",
    "__is_trivially_constructible",
    "__is_trivially_copyable",
    "__is_trivially_destructible",
    "__is_trivially_equality_comparable",
    "__is_trivially_relocatable",
    "__is_unbounded_array",
    "__is_union",
    "__is_unsigned",
    "__is_void",
    "__is_volatile",
    "__label__",
    "__module_private__",
    "__null",
    "__nullptr",
    "__objc_no",
    "__objc_yes",
    "__pascal",
    "__private_extern__",
    "__real",
    "__real__",
    "__reference_binds_to_temporary",
    "__reference_constructs_from_temporary",
    "__reference_converts_from_temporary",
    "__regcall",
    "__restrict",
    "__restrict__",
    "__signed",
    "__signed__",
    "__stdcall",
    "__thiscall",
    "__thread",
    "__typeof",
    "__typeof__",
    "__typeof_unqual",
    "__typeof_unqual__",
    "__vectorcall",
    "__volatile",
    "__volatile__",
    "alignas",
    "alignof",
    "and",
    "and_eq",
    "asm",
    "auto",
    "bitand",
    "bitor",
    "bool",
    "break",
    "case",
    "catch",
    "char",
    "char16_t",
    "char32_t",
    "char8_t",
    "class",
    "co_await",
    "co_return",
    "co_yield",
    "compl",
    "concept",
    "const",
    "const_cast",
    "consteval",
    "constexpr",
    "constinit",
    "continue",
    "decltype",
    "default",
    "delete",
    "do",
    "double",
    "dynamic_cast",
    "else",
    "enum",
    "explicit",
    "export",
    "extern",
    "false",
    "float",
    "for",
    "friend",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "not",
    "not_eq",
    "nullptr",
    "operator",
    "or",
    "or_eq",
    "private",
    "protected",
    "public",
    "register",
    "reinterpret_cast",
    "requires",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "static_assert",
    "static_cast",
    "struct",
    "switch",
    "template",
    "this",
    "thread_local",
    "throw",
    "true",
    "try",
    "typedef",
    "typeid",
    "typename",
    "union",
    "unsigned",
    "using",
    "virtual",
    "void",
    "volatile",
    "wchar_t",
    "while",
    "xor",
    "xor_eq",
};

constexpr size_t kLongest = [] {
  size_t longest = 0;
  for (std::string_view k : kKeywords) longest = std::max(longest, k.size());
  return longest;
}();

uint32_t Hash(std::string_view s) {
  uint32_t h = 2166136261u;
  for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  return h;
}

// Open addressing over the table: one hash and usually one comparison per identifier, where a
// sorted search would compare nine times (identifiers are most of a file's tokens).
class KeywordTable {
 public:
  KeywordTable() {
    for (std::string_view k : kKeywords) {
      lengths_by_start_[static_cast<unsigned char>(k[0])] |= uint64_t{1} << k.size();
      ends_[static_cast<unsigned char>(k.back())] = true;
      uint32_t slot = Hash(k) & kMask;
      while (!slots_[slot].empty()) slot = (slot + 1) & kMask;
      slots_[slot] = k;
    }
  }
  // Keywords start with `_` or a lower-case letter, and few of each start have a word's length:
  // most of CUTLASS's identifiers (types, template parameters, members) are ruled out by two
  // table reads, without a hash or a comparison.
  bool MayBe(std::string_view word) const {
    const uint64_t lengths = lengths_by_start_[static_cast<unsigned char>(word[0])];
    return (lengths >> word.size() & 1) && ends_[static_cast<unsigned char>(word.back())];
  }
  bool Contains(std::string_view word) const {
    for (uint32_t slot = Hash(word) & kMask;; slot = (slot + 1) & kMask) {
      if (slots_[slot].empty()) return false;
      if (slots_[slot] == word) return true;
    }
  }

 private:
  static constexpr uint32_t kSize = 1024;  // four times the keywords: short probe runs
  static constexpr uint32_t kMask = kSize - 1;
  static_assert(std::size(kKeywords) * 2 < kSize);
  std::array<std::string_view, kSize> slots_{};
  static_assert(kLongest < 64);                   // a length is a bit of lengths_by_start_
  std::array<uint64_t, 256> lengths_by_start_{};  // bit n: a keyword of n bytes starts so
  std::array<bool, 256> ends_{};
};

// Built before main (no guard to test on each of the lexer's identifiers).
const KeywordTable kTable;

}  // namespace

bool IsCxxKeyword(std::string_view word) {
  if (word.size() < 2 || word.size() > kLongest || !kTable.MayBe(word)) return false;
  return kTable.Contains(word);
}

}  // namespace archpatch::cuda
