#include "cuda/libclang.h"

#include <clang-c/Index.h>

#include "util/lazy_library.h"
#include "util/library_code.h"

namespace archpatch::cuda {
namespace {

// The name the build linked against (its SONAME on Debian), found as the loader finds a library:
// the binary's RUNPATH (the tarball's lib/), LD_LIBRARY_PATH, ld.so.cache; then where LLVM
// keeps it, for a system whose cache does not list LLVM's folder.
LazyLibrary& Libclang() {
  static LazyLibrary library("libclang", {ARCHPATCH_LIBCLANG_SONAME, ARCHPATCH_LIBCLANG_PATH},
                             "Debian: apt-get install libclang1-19", [] {
                               // libLLVM's static constructors touched 42 MB of its and
                               // libclang's code (util/library_code.h); a parse maps back the
                               // little it runs.
                               ReleaseLibraryCode({"libLLVM", "libclang"});
                             });
  return library;
}

}  // namespace

Status LoadLibclang() { return Libclang().Load(); }

}  // namespace archpatch::cuda

// The clang_* functions archpatch calls, with libclang's signatures (the compiler checks them
// against clang-c/Index.h), each resolved on its first call.
#define ARCHPATCH_FORWARD(ret, name, params, args) \
  ARCHPATCH_LAZY_FORWARD(archpatch::cuda::Libclang(), ret, name, params, args)

ARCHPATCH_FORWARD(CXEvalResult, clang_Cursor_Evaluate, (CXCursor C), (C))
ARCHPATCH_FORWARD(unsigned, clang_Cursor_isMacroFunctionLike, (CXCursor C), (C))
ARCHPATCH_FORWARD(void, clang_EvalResult_dispose, (CXEvalResult E), (E))
ARCHPATCH_FORWARD(long long, clang_EvalResult_getAsLongLong, (CXEvalResult E), (E))
ARCHPATCH_FORWARD(CXEvalResultKind, clang_EvalResult_getKind, (CXEvalResult E), (E))
ARCHPATCH_FORWARD(int, clang_File_isEqual, (CXFile file1, CXFile file2), (file1, file2))
ARCHPATCH_FORWARD(int, clang_Location_isFromMainFile, (CXSourceLocation location), (location))
ARCHPATCH_FORWARD(CXIndex, clang_createIndex, (int excludeDeclarationsFromPCH, int displayDiagnostics),
                  (excludeDeclarationsFromPCH, displayDiagnostics))
ARCHPATCH_FORWARD(unsigned, clang_defaultReparseOptions, (CXTranslationUnit TU), (TU))
ARCHPATCH_FORWARD(void, clang_disposeIndex, (CXIndex index), (index))
ARCHPATCH_FORWARD(void, clang_disposeSourceRangeList, (CXSourceRangeList * ranges), (ranges))
ARCHPATCH_FORWARD(void, clang_disposeString, (CXString string), (string))
ARCHPATCH_FORWARD(void, clang_disposeTokens, (CXTranslationUnit TU, CXToken* Tokens, unsigned NumTokens),
                  (TU, Tokens, NumTokens))
ARCHPATCH_FORWARD(void, clang_disposeTranslationUnit, (CXTranslationUnit TU), (TU))
ARCHPATCH_FORWARD(const char*, clang_getCString, (CXString string), (string))
ARCHPATCH_FORWARD(CXBinaryOperatorKind, clang_getCursorBinaryOperatorKind, (CXCursor cursor), (cursor))
ARCHPATCH_FORWARD(CXSourceRange, clang_getCursorExtent, (CXCursor C), (C))
ARCHPATCH_FORWARD(CXCursorKind, clang_getCursorKind, (CXCursor C), (C))
ARCHPATCH_FORWARD(CXSourceLocation, clang_getCursorLocation, (CXCursor C), (C))
ARCHPATCH_FORWARD(CXString, clang_getCursorSpelling, (CXCursor C), (C))
ARCHPATCH_FORWARD(CXUnaryOperatorKind, clang_getCursorUnaryOperatorKind, (CXCursor cursor), (cursor))
ARCHPATCH_FORWARD(CXFile, clang_getFile, (CXTranslationUnit tu, const char* file_name), (tu, file_name))
ARCHPATCH_FORWARD(void, clang_getFileLocation,
                  (CXSourceLocation location, CXFile* file, unsigned* line, unsigned* column, unsigned* offset),
                  (location, file, line, column, offset))
ARCHPATCH_FORWARD(CXSourceLocation, clang_getLocationForOffset, (CXTranslationUnit tu, CXFile file, unsigned offset),
                  (tu, file, offset))
ARCHPATCH_FORWARD(CXSourceRange, clang_getRange, (CXSourceLocation begin, CXSourceLocation end), (begin, end))
ARCHPATCH_FORWARD(CXSourceLocation, clang_getRangeEnd, (CXSourceRange range), (range))
ARCHPATCH_FORWARD(CXSourceLocation, clang_getRangeStart, (CXSourceRange range), (range))
ARCHPATCH_FORWARD(CXSourceRangeList*, clang_getSkippedRanges, (CXTranslationUnit tu, CXFile file), (tu, file))
ARCHPATCH_FORWARD(CXSourceRange, clang_getTokenExtent, (CXTranslationUnit TU, CXToken T), (TU, T))
ARCHPATCH_FORWARD(CXTokenKind, clang_getTokenKind, (CXToken T), (T))
ARCHPATCH_FORWARD(CXCursor, clang_getTranslationUnitCursor, (CXTranslationUnit TU), (TU))
ARCHPATCH_FORWARD(CXErrorCode, clang_parseTranslationUnit2,
                  (CXIndex CIdx, const char* source_filename, const char* const* command_line_args,
                   int num_command_line_args, CXUnsavedFile* unsaved_files, unsigned num_unsaved_files,
                   unsigned options, CXTranslationUnit* out_TU),
                  (CIdx, source_filename, command_line_args, num_command_line_args, unsaved_files, num_unsaved_files,
                   options, out_TU))
ARCHPATCH_FORWARD(int, clang_reparseTranslationUnit,
                  (CXTranslationUnit TU, unsigned num_unsaved_files, CXUnsavedFile* unsaved_files, unsigned options),
                  (TU, num_unsaved_files, unsaved_files, options))
ARCHPATCH_FORWARD(void, clang_tokenize,
                  (CXTranslationUnit TU, CXSourceRange Range, CXToken** Tokens, unsigned* NumTokens),
                  (TU, Range, Tokens, NumTokens))
ARCHPATCH_FORWARD(unsigned, clang_visitChildren, (CXCursor parent, CXCursorVisitor visitor, CXClientData client_data),
                  (parent, visitor, client_data))

#undef ARCHPATCH_FORWARD
