// Two error channels: Error values for bad input, MEEPLECAM_CHECK for broken invariants.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace meeplecam {

// What kind of bad input an Error reports; maps to the command-line exit codes.
enum class ErrorKind {
    Invalid = 2,  // unreadable or malformed input (file, JSON, unknown ids)
    Illegal = 3,  // well-formed, but breaks a rule of the game
};

// A bad-input report: where (file, event index, field) and why.
struct Error {
    ErrorKind kind = ErrorKind::Invalid;
    std::string where;    // e.g. "match.json: event 7"
    std::string message;  // e.g. "tile V does not fit: its west side (road) faces a city"

    std::string to_string() const { return where.empty() ? message : where + ": " + message; }
};

inline Error invalid(std::string where, std::string message) {
    return Error{ErrorKind::Invalid, std::move(where), std::move(message)};
}
inline Error illegal(std::string where, std::string message) {
    return Error{ErrorKind::Illegal, std::move(where), std::move(message)};
}

// A value or an Error. Small on purpose: has_value(), value(), error().
template <class T>
class Result {
public:
    Result(T value) : data_(std::move(value)) {}  // NOLINT: implicit by design
    Result(Error error) : data_(std::move(error)) {}  // NOLINT: implicit by design

    bool has_value() const { return std::holds_alternative<T>(data_); }
    explicit operator bool() const { return has_value(); }
    T& value() & { return std::get<T>(data_); }
    const T& value() const& { return std::get<T>(data_); }
    T&& value() && { return std::get<T>(std::move(data_)); }
    const Error& error() const { return std::get<Error>(data_); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }

private:
    std::variant<T, Error> data_;
};

// The "nothing but success or an Error" result.
struct Ok {};
using Status = Result<Ok>;

// Thrown when an internal invariant breaks (a bug, never bad input).
class InvariantError : public std::logic_error {
public:
    using std::logic_error::logic_error;
};

[[noreturn]] void fail_check(const char* expr, const char* file, int line, const std::string& what);

}  // namespace meeplecam

#define MEEPLECAM_CHECK(cond, what)                                                   \
    do {                                                                              \
        if (!(cond)) ::meeplecam::fail_check(#cond, __FILE__, __LINE__, (what));      \
    } while (false)
