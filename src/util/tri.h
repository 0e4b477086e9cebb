// Tri: three-valued logic (Kleene), the verdict of a gate on one arch.
// Unknown means the value depends on something archpatch cannot know (an unlisted project macro,
// a runtime value); and/or short-circuit the way the C preprocessor would.
#pragma once

#include <string_view>

namespace archpatch {

enum class Tri { kFalse, kTrue, kUnknown };

inline Tri TriOf(bool b) { return b ? Tri::kTrue : Tri::kFalse; }

inline Tri TriNot(Tri a) {
  if (a == Tri::kUnknown) return a;
  return a == Tri::kTrue ? Tri::kFalse : Tri::kTrue;
}

inline Tri TriAnd(Tri a, Tri b) {
  if (a == Tri::kFalse || b == Tri::kFalse) return Tri::kFalse;
  if (a == Tri::kTrue && b == Tri::kTrue) return Tri::kTrue;
  return Tri::kUnknown;
}

inline Tri TriOr(Tri a, Tri b) {
  if (a == Tri::kTrue || b == Tri::kTrue) return Tri::kTrue;
  if (a == Tri::kFalse && b == Tri::kFalse) return Tri::kFalse;
  return Tri::kUnknown;
}

// "true", "false", "unknown": the spelling used in --json output.
inline std::string_view TriName(Tri a) {
  switch (a) {
    case Tri::kTrue: return "true";
    case Tri::kFalse: return "false";
    case Tri::kUnknown: return "unknown";
  }
  return "unknown";
}

}  // namespace archpatch
