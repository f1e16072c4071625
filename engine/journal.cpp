#include "engine/journal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "engine/atomic_file.h"
#include "engine/json_text.h"
#include "engine/write_steps.h"

namespace meeplecam {
namespace {

std::string hex32(std::uint32_t v) {
    char buf[9];
    std::snprintf(buf, sizeof(buf), "%08x", v);
    return buf;
}

// The record without its events: what the journal's header line holds.
nlohmann::json header_json(const Record& r) {
    nlohmann::json h = r.to_json();
    h.erase("events");  // "finished" stays: a finished match's journal is rewritten with it (not offered for resuming)
    return nlohmann::json{{"format", "meeplecam-journal"}, {"version", 1}, {"record", h}};
}

std::string event_line(int seq, const Event& e) {
    const std::string body = e.to_json().dump();
    return nlohmann::json{{"seq", seq}, {"event", nlohmann::json::parse(body)}, {"crc", hex32(crc32(body))}}.dump() + "\n";
}

Status write_all(int fd, std::string_view data, const std::string& path) {
    std::size_t done = 0;
    while (done < data.size()) {
        const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            return invalid(path, std::string("journal write failed: ") + std::strerror(errno));
        }
        done += static_cast<std::size_t>(n);
        write_steps::step();
    }
    if (::fsync(fd) != 0) return invalid(path, std::string("journal fsync failed: ") + std::strerror(errno));
    write_steps::step();
    return Ok{};
}

Result<int> open_for_append(const std::string& path) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0) return invalid(path, std::string("cannot open the journal: ") + std::strerror(errno));
    return fd;
}

}  // namespace

std::uint32_t crc32(std::string_view data) {
    static const std::array<std::uint32_t, 256> table = [] {
        std::array<std::uint32_t, 256> t{};
        for (std::uint32_t i = 0; i < 256; ++i) {
            std::uint32_t c = i;
            for (int k = 0; k < 8; ++k) c = (c & 1u) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            t[i] = c;
        }
        return t;
    }();
    std::uint32_t crc = 0xFFFFFFFFu;
    for (unsigned char ch : data) crc = table[(crc ^ ch) & 0xFFu] ^ (crc >> 8);
    return crc ^ 0xFFFFFFFFu;
}

Result<JournalWriter> JournalWriter::create(const std::string& path, const Record& header) {
    std::string text = header_json(header).dump() + "\n";
    for (std::size_t i = 0; i < header.events.size(); ++i) text += event_line(static_cast<int>(i), header.events[i]);
    if (auto st = write_file_atomically(path, text); !st) return st.error();
    auto fd = open_for_append(path);
    if (!fd) return fd.error();
    return JournalWriter(path, fd.value(), static_cast<int>(header.events.size()));
}

Result<JournalWriter> JournalWriter::resume(const std::string& path) {
    auto recovered = recover_journal(path);
    if (!recovered) return recovered.error();
    if (::truncate(path.c_str(), static_cast<off_t>(recovered->intact_bytes)) != 0) {
        return invalid(path, std::string("cannot cut the torn tail of the journal: ") + std::strerror(errno));
    }
    write_steps::step();
    auto fd = open_for_append(path);
    if (!fd) return fd.error();
    return JournalWriter(path, fd.value(), static_cast<int>(recovered->record.events.size()));
}

JournalWriter::JournalWriter(JournalWriter&& other) noexcept
    : path_(std::move(other.path_)), fd_(other.fd_), next_seq_(other.next_seq_) {
    other.fd_ = -1;
}

JournalWriter& JournalWriter::operator=(JournalWriter&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) ::close(fd_);
        path_ = std::move(other.path_);
        fd_ = other.fd_;
        next_seq_ = other.next_seq_;
        other.fd_ = -1;
    }
    return *this;
}

JournalWriter::~JournalWriter() {
    if (fd_ >= 0) ::close(fd_);
}

Status JournalWriter::append(const Event& event) {
    if (fd_ < 0) return invalid(path_, "the journal is closed");
    if (auto st = write_all(fd_, event_line(next_seq_, event), path_); !st) return st;
    ++next_seq_;
    return Ok{};
}

Result<JournalRecovery> recover_journal(const std::string& path) {
    auto text = read_whole_file(path);
    if (!text) return text.error();
    const std::string& t = text.value();
    const std::size_t first_end = t.find('\n');
    if (first_end == std::string::npos) return invalid(path, "the journal has no complete header line (nothing to recover)");
    auto header = parse_json_text(std::string_view(t).substr(0, first_end), path + ": line 1");
    if (!header) return header.error();
    if (!header->is_object() || header->value("format", "") != "meeplecam-journal" || !header->contains("record")) {
        return invalid(path + ": line 1", "not a meeplecam journal header");
    }
    nlohmann::json doc = (*header)["record"];
    doc["events"] = nlohmann::json::array();
    auto base = parse_record(doc, path + ": line 1");
    if (!base) return base.error();
    JournalRecovery out;
    out.record = std::move(base.value());
    out.intact_bytes = first_end + 1;

    std::size_t pos = first_end + 1;
    int line_no = 1;
    while (pos < t.size()) {
        ++line_no;
        const std::size_t end = t.find('\n', pos);
        const std::string where = "line " + std::to_string(line_no);
        if (end == std::string::npos) {
            out.problems.push_back(where + ": torn write (the last event was not completely written); it is lost");
            break;
        }
        const std::string_view line = std::string_view(t).substr(pos, end - pos);
        auto parsed = parse_json_text(line, where);
        std::string trouble;
        if (!parsed || !parsed->is_object() || !parsed->contains("event") || !parsed->contains("crc") ||
            !parsed->contains("seq")) {
            trouble = "unreadable entry";
        } else if ((*parsed)["crc"] != hex32(crc32((*parsed)["event"].dump()))) {
            trouble = "checksum mismatch (the entry was damaged)";
        } else if ((*parsed)["seq"] != static_cast<int>(out.record.events.size())) {
            trouble = "out-of-order entry (expected seq " + std::to_string(out.record.events.size()) + ")";
        } else {
            auto ev = parse_record_event((*parsed)["event"], path + ": " + where);
            if (!ev) {
                trouble = ev.error().message;
            } else {
                out.record.events.push_back(std::move(ev.value()));
                out.intact_bytes = end + 1;
                pos = end + 1;
                continue;
            }
        }
        std::size_t rest = 0;
        for (std::size_t p = pos; p < t.size(); ++p) rest += t[p] == '\n' ? 1 : 0;
        out.problems.push_back(where + ": " + trouble + "; it and the " + std::to_string(rest > 0 ? rest - 1 : 0) +
                               " line(s) after it are ignored");
        break;
    }
    return out;
}

}  // namespace meeplecam
