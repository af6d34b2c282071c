#include "core/errno_text.h"

#include <cerrno>
#include <cstring>

#include "core/i18n.h"

namespace tfrig::core {

namespace {

const char* errno_english(int err) {
  // glibc's strerror texts for the errors a file tool meets; the English is
  // the catalog key, so any other errno prints as strerror gives it.
  switch (err) {
    case ENOENT: return N_("No such file or directory");
    case EACCES: return N_("Permission denied");
    case EPERM: return N_("Operation not permitted");
    case ENOSPC: return N_("No space left on device");
    case EDQUOT: return N_("Disk quota exceeded");
    case EISDIR: return N_("Is a directory");
    case ENOTDIR: return N_("Not a directory");
    case EROFS: return N_("Read-only file system");
    case EEXIST: return N_("File exists");
    case EIO: return N_("Input/output error");
    case ELOOP: return N_("Too many levels of symbolic links");
    case ENAMETOOLONG: return N_("File name too long");
    case EMFILE: return N_("Too many open files");
    case EBUSY: return N_("Device or resource busy");
    case EINVAL: return N_("Invalid argument");
    case ENXIO: return N_("No such device or address");
    case ENODEV: return N_("No such device");
    case ENOMEM: return N_("Cannot allocate memory");
    case ENFILE: return N_("Too many open files in system");
    case EFBIG: return N_("File too large");
    case EXDEV: return N_("Invalid cross-device link");
    case ENOTEMPTY: return N_("Directory not empty");
    case ETXTBSY: return N_("Text file busy");
    case EPIPE: return N_("Broken pipe");
    case ENOEXEC: return N_("Exec format error");
    case EOVERFLOW: return N_("Value too large for defined data type");
    case EBADF: return N_("Bad file descriptor");
    case EAGAIN: return N_("Resource temporarily unavailable");
    case ENOSYS: return N_("Function not implemented");
    case EOPNOTSUPP: return N_("Operation not supported");
    default: break;
  }
  return nullptr;
}

}  // namespace

std::string errno_text(int err) {
  if (const char* e = errno_english(err)) return _(e);
  return std::strerror(err);
}

MessageArg errno_arg(int err) {
  if (const char* e = errno_english(err)) return Message(e);
  return std::string(std::strerror(err));
}

std::string error_code_text(const std::error_code& ec) {
  if (ec.category() == std::generic_category() || ec.category() == std::system_category())
    return errno_text(ec.value());
  return ec.message();
}

namespace {

// TRANSLATORS: the file operations below fill "{0} failed: {1}" (an errno message follows).
const std::pair<const char*, const char*> kFileActions[] = {
    NC_("file operation", "open"),
    NC_("file operation", "read"),
    NC_("file operation", "write"),
    NC_("file operation", "stat"),
    NC_("file operation", "list"),
    NC_("file operation", "close"),
    NC_("file operation", "create"),
    NC_("file operation", "fsync"),
    NC_("file operation", "rename"),
    NC_("file operation", "mkdir"),
    NC_("file operation", "opendir"),
    NC_("file operation", "readdir"),
    NC_("file operation", "readlink"),
    NC_("file operation", "resolve"),
    NC_("file operation", "statvfs"),
    NC_("file operation", "run"),
    NC_("file operation", "open directory"),
    NC_("file operation", "fsync directory"),
    NC_("file operation", "open O_DIRECT"),
    NC_("file operation", "create marker"),
    NC_("file operation", "create test file"),
    NC_("file operation", "write test file"),
    NC_("file operation", "create history directory"),
    NC_("file operation", "stat new scratch directory"),
    NC_("file operation", "open scratch directory for removal"),
    NC_("file operation", "use as the benchmark directory"),
};

const std::pair<const char*, const char*>* known_action(std::string_view action) {
  for (const auto& a : kFileActions) {
    if (action == a.second) return &a;
  }
  return nullptr;
}

}  // namespace

std::string file_action_text(std::string_view action) {
  if (const auto* a = known_action(action)) return C_(a->first, a->second);
  return std::string(action);
}

MessageArg file_action_arg(std::string_view action) {
  if (const auto* a = known_action(action)) return Message::in_context(*a);
  return std::string(action);
}

}  // namespace tfrig::core
