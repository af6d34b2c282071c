#include "core/errno_text.h"

#include <cerrno>
#include <cstring>

#include "core/i18n.h"

namespace tfrig::core {

std::string errno_text(int err) {
  // glibc's strerror texts for the errors a file tool meets; the English is
  // the catalog key, so any other errno prints as strerror gives it.
  switch (err) {
    case ENOENT: return _("No such file or directory");
    case EACCES: return _("Permission denied");
    case EPERM: return _("Operation not permitted");
    case ENOSPC: return _("No space left on device");
    case EDQUOT: return _("Disk quota exceeded");
    case EISDIR: return _("Is a directory");
    case ENOTDIR: return _("Not a directory");
    case EROFS: return _("Read-only file system");
    case EEXIST: return _("File exists");
    case EIO: return _("Input/output error");
    case ELOOP: return _("Too many levels of symbolic links");
    case ENAMETOOLONG: return _("File name too long");
    case EMFILE: return _("Too many open files");
    case EBUSY: return _("Device or resource busy");
    case EINVAL: return _("Invalid argument");
    case ENXIO: return _("No such device or address");
    case ENODEV: return _("No such device");
    case ENOMEM: return _("Cannot allocate memory");
    case ENFILE: return _("Too many open files in system");
    case EFBIG: return _("File too large");
    case EXDEV: return _("Invalid cross-device link");
    case ENOTEMPTY: return _("Directory not empty");
    case ETXTBSY: return _("Text file busy");
    case EPIPE: return _("Broken pipe");
    case ENOEXEC: return _("Exec format error");
    case EOVERFLOW: return _("Value too large for defined data type");
    case EBADF: return _("Bad file descriptor");
    case EAGAIN: return _("Resource temporarily unavailable");
    case ENOSYS: return _("Function not implemented");
    case EOPNOTSUPP: return _("Operation not supported");
    default: break;
  }
  return std::strerror(err);
}

std::string error_code_text(const std::error_code& ec) {
  if (ec.category() == std::generic_category() || ec.category() == std::system_category()) return errno_text(ec.value());
  return ec.message();
}

std::string file_action_text(std::string_view action) {
  // TRANSLATORS: the file operations below fill "{0} failed: {1}" (an errno message follows).
  if (action == "open") return C_("file operation", "open");
  if (action == "read") return C_("file operation", "read");
  if (action == "write") return C_("file operation", "write");
  if (action == "stat") return C_("file operation", "stat");
  if (action == "list") return C_("file operation", "list");
  if (action == "close") return C_("file operation", "close");
  if (action == "create") return C_("file operation", "create");
  if (action == "fsync") return C_("file operation", "fsync");
  if (action == "rename") return C_("file operation", "rename");
  if (action == "mkdir") return C_("file operation", "mkdir");
  if (action == "opendir") return C_("file operation", "opendir");
  if (action == "readdir") return C_("file operation", "readdir");
  if (action == "readlink") return C_("file operation", "readlink");
  if (action == "resolve") return C_("file operation", "resolve");
  if (action == "statvfs") return C_("file operation", "statvfs");
  if (action == "run") return C_("file operation", "run");
  if (action == "open directory") return C_("file operation", "open directory");
  if (action == "fsync directory") return C_("file operation", "fsync directory");
  if (action == "open O_DIRECT") return C_("file operation", "open O_DIRECT");
  if (action == "create marker") return C_("file operation", "create marker");
  if (action == "create test file") return C_("file operation", "create test file");
  if (action == "write test file") return C_("file operation", "write test file");
  if (action == "create history directory") return C_("file operation", "create history directory");
  if (action == "stat new scratch directory") return C_("file operation", "stat new scratch directory");
  if (action == "open scratch directory for removal") return C_("file operation", "open scratch directory for removal");
  if (action == "use as the benchmark directory") return C_("file operation", "use as the benchmark directory");
  return std::string(action);
}

}  // namespace tfrig::core
