#include "scan/file_bytes.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "util/input_file.h"

namespace archpatch::scan {

Status FileBytes::Load(const std::string& path) {
  Unmap();
  size_ = 0;  // a failed load leaves no earlier file's bytes in view()
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error{fmt::format("cannot read: {}", std::strerror(errno)), Location{path}};
  struct stat st{};
  size_t size = ::fstat(fd, &st) == 0 ? static_cast<size_t>(st.st_size) : 0;
  if (size > kMaxSourceBytes) {
    ::close(fd);
    return Error{fmt::format("{} bytes is more than a source file may hold ({} MiB)", size, kMaxSourceBytes >> 20),
                 Location{path}};
  }
  if (size > kReadLimit) {
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p != MAP_FAILED) mapped_ = static_cast<const char*>(p), mapped_size_ = size;
  } else {
    if (size > capacity_) buffer_.reset(new char[size]), capacity_ = size;  // uninitialized: read fills it
    size_t got = 0;
    while (got < size) {
      ssize_t n = ::read(fd, buffer_.get() + got, size - got);
      if (n <= 0) break;
      got += static_cast<size_t>(n);
    }
    size_ = got;
  }
  ::close(fd);
  return Ok{};
}

void FileBytes::Release() {
  Unmap();
  if (capacity_ > kKeep) buffer_.reset(), capacity_ = 0, size_ = 0;
}

void FileBytes::Unmap() {
  if (mapped_) ::munmap(const_cast<char*>(mapped_), mapped_size_);
  mapped_ = nullptr, mapped_size_ = 0;
}

size_t ByteBudget::Take(size_t bytes) {
  std::unique_lock<std::mutex> lock(mutex_);
  freed_.wait(lock, [&] { return in_flight_ == 0 || in_flight_ + bytes <= kLimit; });
  in_flight_ += bytes;
  return bytes;
}

void ByteBudget::Give(size_t bytes) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    in_flight_ -= bytes;
  }
  freed_.notify_all();
}

}  // namespace archpatch::scan
