// Result<T>: the value of an operation that can fail in an expected way (bad input, a file that
// does not match). Unexpected failures throw archpatch::Fatal instead and are caught once in main.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace archpatch {

// Where an error points: "file:line:column" when there is a place, empty otherwise.
struct Location {
  std::string file;
  int line = 0;
  int column = 0;

  bool empty() const { return file.empty() && line == 0; }
  std::string str() const;  // "file:line:col", "file:line", "file" or ""
};

struct Error {
  std::string message;
  Location where;

  // "file:line:col: message" or just "message".
  std::string str() const;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}
  Result(Error error) : state_(std::move(error)) {}

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() { return std::get<0>(state_); }
  const T& value() const { return std::get<0>(state_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const { return std::get<1>(state_); }

 private:
  std::variant<T, Error> state_;
};

// Result<void> equivalent.
struct Ok {};
using Status = Result<Ok>;

// Fatal: failures the program cannot continue from (I/O errors mid-transaction, broken invariants).
// Thrown, caught once in main(), printed as "archpatch: error: ..." and mapped to an exit code.
class Fatal : public std::runtime_error {
 public:
  explicit Fatal(const std::string& what, int exit_code = 3) : std::runtime_error(what), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

// UsageError: bad options or input the user must fix; exit code 2, nothing changed.
class UsageError : public Fatal {
 public:
  explicit UsageError(const std::string& what) : Fatal(what, 2) {}
};

}  // namespace archpatch
