#include "engine/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/write_steps.h"

namespace meeplecam {

Status write_file_atomically(const std::string& path, std::string_view content) {
    namespace fs = std::filesystem;
    const fs::path target(path);
    const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    const std::string tmp = (dir / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
    std::string tmpl = tmp;
    const int fd = ::mkstemp(tmpl.data());
    if (fd < 0) return invalid(path, std::string("cannot create a temporary file: ") + std::strerror(errno));
    write_steps::step();
    std::size_t written = 0;
    while (written < content.size()) {
        const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
        if (n < 0) {
            if (errno == EINTR) continue;
            const std::string why = std::strerror(errno);
            ::close(fd);
            ::unlink(tmpl.c_str());
            return invalid(path, "write failed: " + why);
        }
        written += static_cast<std::size_t>(n);
        write_steps::step();
    }
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        const std::string why = std::strerror(errno);
        ::unlink(tmpl.c_str());
        return invalid(path, "fsync failed: " + why);
    }
    write_steps::step();
    ::chmod(tmpl.c_str(), 0644);
    if (::rename(tmpl.c_str(), path.c_str()) != 0) {
        const std::string why = std::strerror(errno);
        ::unlink(tmpl.c_str());
        return invalid(path, "rename failed: " + why);
    }
    write_steps::step();
    if (const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY); dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
        write_steps::step();
    }
    return Ok{};
}

Result<std::string> read_whole_file(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) return invalid(path, "is a folder, not a file");
    std::ifstream in(path, std::ios::binary);
    if (!in) return invalid(path, std::string("cannot open: ") + std::strerror(errno));
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) return invalid(path, "read error");
    return text.str();
}

}  // namespace meeplecam
