// Printed targets: the ChArUco board (camera intrinsics) and the four table-corner ArUco
// markers (table plane), drawn at true size onto an A4 sheet and written as PNG (with its
// resolution in a pHYs chunk) or as a one-page PDF whose image is placed at exact mm size.
#pragma once

#include <filesystem>
#include <string>

#include <opencv2/core.hpp>

#include "engine/error.h"

namespace meeplecam::calibration {

// The ChArUco board: a chessboard whose white squares hold ArUco markers (DICT_5X5_100).
struct CharucoSpec {
    int squares_x = 9;        // squares across (fits landscape A4 with the default square)
    int squares_y = 6;        // squares down
    double square_mm = 28;    // chessboard square side
    double marker_mm = 21;    // ArUco marker side inside a white square
    Status check() const;     // the geometry; printing also needs it to fit A4 (a bigger board printed elsewhere calibrates fine)
};

// The table-corner markers: ArUco DICT_4X4_50 ids 0..3 = the table's NW, NE, SE, SW corners.
struct TableMarkerSpec {
    double marker_mm = 60;    // marker side (black border included, white margin excluded)
    Status check() const;
};

// An A4 sheet rasterised at `px_per_mm` (chosen so the target's cells are whole pixels).
struct PrintedSheet {
    cv::Mat image;             // CV_8UC1, 0 black, 255 white
    double px_per_mm = 11.8;   // the sheet's resolution
    std::string title;         // what the sheet holds (also printed on it)
};

// Draws the ChArUco board centred on a landscape A4 sheet, with its size and a 100 mm check bar.
Result<PrintedSheet> charuco_sheet(const CharucoSpec& spec = {});
// Draws the four table markers on a portrait A4 sheet, one per quarter, labelled with id and corner.
Result<PrintedSheet> marker_sheet(const TableMarkerSpec& spec = {});
// The board alone (no margin) at `px_per_square` pixels per square: for tests and previews.
cv::Mat charuco_board_image(const CharucoSpec& spec, int px_per_square);
// One table marker alone, `px` pixels wide, with a white margin of one marker cell around it.
cv::Mat table_marker_image(int id, int px);

// PNG bytes of the sheet with a pHYs chunk (pixels per metre) so viewers know its true size.
std::string sheet_png(const PrintedSheet& sheet);
// A one-page PDF (A4) with the sheet as a 1-bit image XObject placed at its exact mm size.
std::string sheet_pdf(const PrintedSheet& sheet);
// Writes the sheet as .png or .pdf (by extension), atomically.
Status write_sheet(const PrintedSheet& sheet, const std::filesystem::path& path);

}  // namespace meeplecam::calibration
