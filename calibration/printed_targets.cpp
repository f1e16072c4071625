#include "calibration/printed_targets.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <vector>

#include <opencv2/aruco.hpp>
#include <opencv2/aruco/charuco.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "calibration/aruco_dictionaries.h"
#include "engine/atomic_file.h"

namespace meeplecam::calibration {
namespace {

constexpr double kA4ShortMm = 210, kA4LongMm = 297;
constexpr double kTargetPxPerMm = 300 / 25.4;   // about 300 dpi
constexpr double kPtPerMm = 72 / 25.4;          // PDF points per millimetre
constexpr double kTextMm = 3.2;                 // cap height of the printed notes
constexpr double kHersheyCapPx = 22;            // cap height of FONT_HERSHEY_SIMPLEX at scale 1 (px)

int to_px(double mm, double px_per_mm) { return static_cast<int>(std::lround(mm * px_per_mm)); }

std::string mm_text(double mm) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.1f mm", mm);
    return buf;
}

// Writes one line of text with its baseline at (x_mm, y_mm).
void put_text(cv::Mat& sheet, const std::string& text, double x_mm, double y_mm, double ppm, double size_mm = kTextMm) {
    const double scale = size_mm * ppm / kHersheyCapPx;
    const int thickness = std::max(1, static_cast<int>(std::lround(scale * 1.6)));
    cv::putText(sheet, text, cv::Point(to_px(x_mm, ppm), to_px(y_mm, ppm)), cv::FONT_HERSHEY_SIMPLEX, scale, cv::Scalar(0), thickness,
                cv::LINE_AA);
}

// Draws a 100 mm bar with 10 mm ticks, its left end at (x_mm, y_mm): the print-scale check.
void put_check_bar(cv::Mat& sheet, double x_mm, double y_mm, double ppm) {
    cv::rectangle(sheet, cv::Point(to_px(x_mm, ppm), to_px(y_mm, ppm)), cv::Point(to_px(x_mm + 100, ppm) - 1, to_px(y_mm + 1.5, ppm)),
                  cv::Scalar(0), cv::FILLED);
    for (int t = 0; t <= 10; ++t) {
        const int x = to_px(x_mm + 10.0 * t, ppm) - (t == 10 ? 1 : 0);
        cv::line(sheet, cv::Point(x, to_px(y_mm - 2, ppm)), cv::Point(x, to_px(y_mm + 1.5, ppm)), cv::Scalar(0),
                 std::max(1, to_px(0.3, ppm)));
    }
    put_text(sheet, "100 mm", x_mm + 102, y_mm + 1.5, ppm);
}

void append_u32(std::string& out, std::uint32_t v) {
    for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<char>((v >> s) & 0xFF));
}

std::uint32_t crc32(const std::string& bytes) {
    static const auto table = [] {
        std::array<std::uint32_t, 256> t{};
        for (std::uint32_t n = 0; n < 256; ++n) {
            std::uint32_t c = n;
            for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            t[n] = c;
        }
        return t;
    }();
    std::uint32_t c = 0xFFFFFFFFu;
    for (unsigned char b : bytes) c = table[(c ^ b) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

}  // namespace

Status CharucoSpec::check() const {
    auto bad = [](const char* what) { return Status(invalid("charuco board", what)); };
    if (squares_x < 3 || squares_y < 3 || squares_x > 20 || squares_y > 20) return bad("squares_x and squares_y must be within [3, 20]");
    if ((squares_x * squares_y + 1) / 2 > 100) return bad("the board holds more markers than the dictionary (100)");
    if (!(square_mm >= 5 && square_mm <= 200)) return bad("square_mm must be within [5, 200]");
    if (!(marker_mm > 0.3 * square_mm && marker_mm < 0.9 * square_mm)) return bad("marker_mm must be within (0.3, 0.9) x square_mm");
    return Ok{};
}

Status TableMarkerSpec::check() const {
    if (!(marker_mm >= 20 && marker_mm <= 80)) return invalid("table markers", "marker_mm must be within [20, 80]");
    return Ok{};
}

cv::Mat charuco_board_image(const CharucoSpec& spec, int px_per_square) {
    MEEPLECAM_CHECK(spec.check().has_value() && px_per_square >= 8, "a valid board and at least 8 px per square");
    const auto board = cv::aruco::CharucoBoard::create(spec.squares_x, spec.squares_y, static_cast<float>(spec.square_mm),
                                                       static_cast<float>(spec.marker_mm), charuco_dictionary());
    cv::Mat image;
    board->draw(cv::Size(spec.squares_x * px_per_square, spec.squares_y * px_per_square), image, 0, 1);
    return image;
}

cv::Mat table_marker_image(int id, int px) {
    MEEPLECAM_CHECK(id >= 0 && id < 4 && px >= 12, "marker ids 0..3, at least 12 px");
    cv::Mat marker, out;
    cv::aruco::drawMarker(table_marker_dictionary(), id, px, marker, 1);
    const int margin = px / 6;
    cv::copyMakeBorder(marker, out, margin, margin, margin, margin, cv::BORDER_CONSTANT, cv::Scalar(255));
    return out;
}

Result<PrintedSheet> charuco_sheet(const CharucoSpec& spec) {
    if (auto st = spec.check(); !st) return st.error();
    if (spec.squares_x * spec.square_mm > kA4LongMm - 20 || spec.squares_y * spec.square_mm > kA4ShortMm - 40) {
        return invalid("charuco board", "the board does not fit a landscape A4 sheet with margins (277 x 170 mm)");
    }
    const int square_px = static_cast<int>(std::lround(spec.square_mm * kTargetPxPerMm));
    PrintedSheet sheet;
    sheet.px_per_mm = square_px / spec.square_mm;  // squares are whole pixels: the board is exact
    const double ppm = sheet.px_per_mm;
    sheet.image = cv::Mat(to_px(kA4ShortMm, ppm), to_px(kA4LongMm, ppm), CV_8UC1, cv::Scalar(255));
    const cv::Mat board = charuco_board_image(spec, square_px);
    const double board_w = spec.squares_x * spec.square_mm, board_h = spec.squares_y * spec.square_mm;
    const double left_mm = (kA4LongMm - board_w) / 2, top_mm = 10;
    board.copyTo(sheet.image(cv::Rect(to_px(left_mm, ppm), to_px(top_mm, ppm), board.cols, board.rows)));
    char title[160];
    std::snprintf(title, sizeof(title), "meeplecam ChArUco board: %d x %d squares of %s, markers %s (DICT_5X5_100)", spec.squares_x,
                  spec.squares_y, mm_text(spec.square_mm).c_str(), mm_text(spec.marker_mm).c_str());
    sheet.title = title;
    double y = top_mm + board_h + 7;
    put_text(sheet.image, sheet.title, left_mm, y, ppm);
    y += 6;
    put_text(sheet.image, "Print at 100 % (no fit to page). The bar must measure 100 mm; glue the sheet flat.", left_mm, y, ppm);
    put_check_bar(sheet.image, left_mm, y + 5, ppm);
    cv::threshold(sheet.image, sheet.image, 127, 255, cv::THRESH_BINARY);  // pure black and white: the PNG and PDF are 1 bit
    return sheet;
}

Result<PrintedSheet> marker_sheet(const TableMarkerSpec& spec) {
    if (auto st = spec.check(); !st) return st.error();
    const double cell_mm = spec.marker_mm / 6;  // a 4x4 marker is 6 cells wide with its black border
    const int cell_px = static_cast<int>(std::lround(cell_mm * kTargetPxPerMm));
    PrintedSheet sheet;
    sheet.px_per_mm = cell_px / cell_mm;
    const double ppm = sheet.px_per_mm;
    sheet.image = cv::Mat(to_px(kA4LongMm, ppm), to_px(kA4ShortMm, ppm), CV_8UC1, cv::Scalar(255));
    sheet.title = "meeplecam table markers: ArUco DICT_4X4_50, side " + mm_text(spec.marker_mm);
    const char* corners[4] = {"NW", "NE", "SE", "SW"};
    const double quarter_w = kA4ShortMm / 2, quarter_h = (kA4LongMm - 20) / 2;  // 20 mm header
    for (int id = 0; id < 4; ++id) {
        const int col = (id == 1 || id == 2) ? 1 : 0, row = id >= 2 ? 1 : 0;  // NW NE / SW SE
        const double cx = quarter_w * (col + 0.5), cy = 20 + quarter_h * (row + 0.5) - 6;
        cv::Mat marker;
        cv::aruco::drawMarker(table_marker_dictionary(), id, cell_px * 6, marker, 1);
        marker.copyTo(sheet.image(cv::Rect(to_px(cx, ppm) - marker.cols / 2, to_px(cy, ppm) - marker.rows / 2, marker.cols, marker.rows)));
        // A cross through the centre's position just outside the marker helps placing it.
        const double half = spec.marker_mm / 2 + cell_mm + 2;
        for (const double s : {-1.0, 1.0}) {
            cv::line(sheet.image, cv::Point(to_px(cx + s * half, ppm), to_px(cy, ppm)), cv::Point(to_px(cx + s * (half + 6), ppm), to_px(cy, ppm)),
                     cv::Scalar(0), 2);
            cv::line(sheet.image, cv::Point(to_px(cx, ppm), to_px(cy + s * half, ppm)), cv::Point(to_px(cx, ppm), to_px(cy + s * (half + 6), ppm)),
                     cv::Scalar(0), 2);
        }
        put_text(sheet.image, "id " + std::to_string(id) + ": table corner " + corners[id], cx - 30, cy + half + 13, ppm);
    }
    // Cut lines between the quarters.
    for (int x = 0; x < sheet.image.cols; x += 24) {
        cv::line(sheet.image, cv::Point(x, to_px(20 + quarter_h, ppm)), cv::Point(x + 12, to_px(20 + quarter_h, ppm)), cv::Scalar(0), 1);
    }
    for (int y = to_px(20, ppm); y < sheet.image.rows; y += 24) {
        cv::line(sheet.image, cv::Point(to_px(quarter_w, ppm), y), cv::Point(to_px(quarter_w, ppm), y + 12), cv::Scalar(0), 1);
    }
    put_text(sheet.image, sheet.title, 10, 9, ppm);
    put_text(sheet.image, "Print at 100 %. Cut along the dashes; lay each flat at its table corner; measure the centres (mm).", 10, 15,
             ppm, 2.6);
    cv::threshold(sheet.image, sheet.image, 127, 255, cv::THRESH_BINARY);  // pure black and white: the PNG and PDF are 1 bit
    return sheet;
}

std::string sheet_png(const PrintedSheet& sheet) {
    MEEPLECAM_CHECK(sheet.image.type() == CV_8UC1 && !sheet.image.empty(), "a grey sheet");
    std::vector<std::uint8_t> buf;
    cv::imencode(".png", sheet.image, buf, {cv::IMWRITE_PNG_BILEVEL, 1});
    std::string png(buf.begin(), buf.end());
    // Insert a pHYs chunk after IHDR (8-byte signature + 25-byte IHDR chunk).
    MEEPLECAM_CHECK(png.size() > 33 && png.compare(12, 4, "IHDR") == 0, "OpenCV wrote a PNG starting with IHDR");
    const auto ppmetre = static_cast<std::uint32_t>(std::lround(sheet.px_per_mm * 1000));
    std::string body = "pHYs";
    append_u32(body, ppmetre);
    append_u32(body, ppmetre);
    body.push_back(1);  // unit: metre
    std::string chunk;
    append_u32(chunk, 9);
    chunk += body;
    append_u32(chunk, crc32(body));
    png.insert(33, chunk);
    return png;
}

std::string sheet_pdf(const PrintedSheet& sheet) {
    MEEPLECAM_CHECK(sheet.image.type() == CV_8UC1 && !sheet.image.empty(), "a grey sheet");
    const int w = sheet.image.cols, h = sheet.image.rows;
    const bool landscape = w > h;
    const double page_w = (landscape ? kA4LongMm : kA4ShortMm) * kPtPerMm, page_h = (landscape ? kA4ShortMm : kA4LongMm) * kPtPerMm;
    const double img_w = w / sheet.px_per_mm * kPtPerMm, img_h = h / sheet.px_per_mm * kPtPerMm;
    // 1 bit per pixel, rows padded to whole bytes; DeviceGray 1 = white.
    const int row_bytes = (w + 7) / 8;
    std::string bits(static_cast<std::size_t>(row_bytes) * h, '\0');
    for (int y = 0; y < h; ++y) {
        const std::uint8_t* src = sheet.image.ptr<std::uint8_t>(y);
        for (int x = 0; x < w; ++x) {
            if (src[x] >= 128) bits[static_cast<std::size_t>(y) * row_bytes + x / 8] |= static_cast<char>(0x80 >> (x % 8));
        }
    }
    char buf[512];
    std::string pdf = "%PDF-1.4\n%\xE2\xE3\xCF\xD3\n";
    std::vector<std::size_t> offsets;
    auto object = [&](const std::string& body) {
        offsets.push_back(pdf.size());
        pdf += std::to_string(offsets.size()) + " 0 obj\n" + body + "\nendobj\n";
    };
    object("<< /Type /Catalog /Pages 2 0 R >>");
    object("<< /Type /Pages /Kids [3 0 R] /Count 1 >>");
    std::snprintf(buf, sizeof(buf),
                  "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %.4f %.4f] /Resources << /XObject << /Im0 5 0 R >> >> /Contents 4 0 R >>",
                  page_w, page_h);
    object(buf);
    // The image's top-left corner at the page's top-left corner, at exactly its mm size.
    std::snprintf(buf, sizeof(buf), "q %.4f 0 0 %.4f 0 %.4f cm /Im0 Do Q", img_w, img_h, page_h - img_h);
    const std::string content = buf;
    object("<< /Length " + std::to_string(content.size()) + " >>\nstream\n" + content + "\nendstream");
    std::snprintf(buf, sizeof(buf),
                  "<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 1 /Length %zu >>\nstream\n",
                  w, h, bits.size());
    object(std::string(buf) + bits + "\nendstream");
    std::string title;
    for (char c : sheet.title) {
        if (c == '(' || c == ')' || c == '\\') title.push_back('\\');
        title.push_back(c);
    }
    object("<< /Title (" + title + ") /Creator (meeplecam) >>");
    const std::size_t xref = pdf.size();
    pdf += "xref\n0 " + std::to_string(offsets.size() + 1) + "\n0000000000 65535 f \n";
    for (std::size_t off : offsets) {
        std::snprintf(buf, sizeof(buf), "%010zu 00000 n \n", off);
        pdf += buf;
    }
    pdf += "trailer\n<< /Size " + std::to_string(offsets.size() + 1) + " /Root 1 0 R /Info " + std::to_string(offsets.size()) +
           " 0 R >>\nstartxref\n" + std::to_string(xref) + "\n%%EOF\n";
    return pdf;
}

Status write_sheet(const PrintedSheet& sheet, const std::filesystem::path& path) {
    std::string ext = path.extension().string();
    for (auto& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (ext == ".png") return write_file_atomically(path.string(), sheet_png(sheet));
    if (ext == ".pdf") return write_file_atomically(path.string(), sheet_pdf(sheet));
    return invalid(path.string(), "the sheet can be written as .png or .pdf, not '" + ext + "'");
}

}  // namespace meeplecam::calibration
