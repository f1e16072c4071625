#include "calibration/table_plane.h"

#include <cmath>
#include <cstdio>

#include <opencv2/aruco.hpp>
#include <opencv2/calib3d.hpp>

#include "calibration/aruco_dictionaries.h"
#include "calibration/calibration_file.h"
#include "calibration/camera_calibration.h"

namespace meeplecam::calibration {
namespace {

cv::Point2d apply(const cv::Matx33d& h, cv::Point2d p) {
    const cv::Vec3d v = h * cv::Vec3d(p.x, p.y, 1.0);
    return {v[0] / v[2], v[1] / v[2]};
}

const char* const kCornerNames[4] = {"NW", "NE", "SE", "SW"};

std::string marker_name(int id) { return "marker " + std::to_string(id) + " (" + kCornerNames[id] + " corner)"; }

std::string fixed(double v, int digits) {
    char buf[48];
    std::snprintf(buf, sizeof(buf), "%.*f", digits, v);
    return buf;
}

// The image points with the lens distortion removed (pixels of the same camera matrix).
std::vector<cv::Point2d> undistorted(const std::vector<cv::Point2d>& px, const CameraIntrinsics& cam) {
    std::vector<cv::Point2d> out;
    cv::undistortPoints(px, out, cv::Mat(cam.camera_matrix), cam.distortion, cv::noArray(), cv::Mat(cam.camera_matrix));
    return out;
}

}  // namespace

cv::Point2d TablePlane::to_image(cv::Point2d table_mm) const { return apply(table_to_image, table_mm); }

cv::Point2d TablePlane::to_table(cv::Point2d image_px) const { return apply(table_to_image.inv(), image_px); }

Result<TablePlane> fit_table_plane(const std::vector<cv::Point2d>& table_mm, const std::vector<cv::Point2d>& image_px) {
    if (table_mm.size() != image_px.size()) return invalid("table plane", "point lists differ in length");
    if (table_mm.size() < 4) return invalid("table plane", "at least 4 point pairs are needed");
    // Refuse (nearly) collinear table points: the plane is undetermined by them.
    cv::Point2d mean(0, 0);
    for (const auto& p : table_mm) mean += p;
    mean *= 1.0 / static_cast<double>(table_mm.size());
    double sxx = 0, syy = 0, sxy = 0;
    for (const auto& p : table_mm) {
        const cv::Point2d d = p - mean;
        sxx += d.x * d.x;
        syy += d.y * d.y;
        sxy += d.x * d.y;
    }
    const double trace = sxx + syy, det = sxx * syy - sxy * sxy;
    if (trace <= 0 || det <= 1e-9 * trace * trace) {
        return invalid("table plane", "the table points are collinear or repeated");
    }
    const cv::Mat h = cv::findHomography(table_mm, image_px, 0);
    if (h.empty()) return invalid("table plane", "the points are degenerate (collinear or repeated)");
    TablePlane plane;
    plane.table_to_image = cv::Matx33d(h);
    double sum = 0.0;
    for (std::size_t i = 0; i < table_mm.size(); ++i) {
        const cv::Point2d d = plane.to_image(table_mm[i]) - image_px[i];
        sum += d.dot(d);
    }
    plane.rms_error_px = std::sqrt(sum / static_cast<double>(table_mm.size()));
    return plane;
}

Status TableMarkerOptions::check() const {
    if (!(marker_mm >= 10 && marker_mm <= 200)) return invalid("table markers", "the marker side must be within [10, 200] mm");
    if (!(max_size_error > 0 && max_size_error < 1)) return invalid("table markers", "max_size_error must be within (0, 1)");
    // The centres must form a convex quadrilateral NW -> NE -> SE -> SW turning one way, at
    // least a few marker sides apart (else the markers overlap).
    double sign = 0;
    for (int i = 0; i < 4; ++i) {
        const cv::Point2d a = centres_mm[i], b = centres_mm[(i + 1) % 4], c = centres_mm[(i + 2) % 4];
        if (!std::isfinite(a.x) || !std::isfinite(a.y)) return invalid("marker positions", "must be finite numbers (mm)");
        if (cv::norm(b - a) < 1.5 * marker_mm) {
            return invalid("marker positions", std::string("markers ") + std::to_string(i) + " and " + std::to_string((i + 1) % 4) +
                                                   " are closer than 1.5 marker sides: they would overlap");
        }
        const double cross = (b - a).cross(c - b);
        if (cross == 0 || (sign != 0 && (cross > 0) != (sign > 0))) {
            return invalid("marker positions", "the centres of markers 0, 1, 2, 3 (NW, NE, SE, SW) must go round a convex quadrilateral");
        }
        sign = cross;
    }
    return Ok{};
}

std::array<cv::Point2d, 4> rectangle_centres(double width_mm, double height_mm) {
    return {cv::Point2d(0, 0), cv::Point2d(width_mm, 0), cv::Point2d(width_mm, height_mm), cv::Point2d(0, height_mm)};
}

Result<std::array<FoundMarker, 4>> find_table_markers(const cv::Mat& image, const std::string& where) {
    if (image.empty() || (image.type() != CV_8UC3 && image.type() != CV_8UC1)) return invalid(where, "expects a non-empty 8-bit image");
    auto params = cv::aruco::DetectorParameters::create();
    params->cornerRefinementMethod = cv::aruco::CORNER_REFINE_SUBPIX;
    std::vector<std::vector<cv::Point2f>> corners;
    std::vector<int> ids;
    cv::aruco::detectMarkers(image, table_marker_dictionary(), corners, ids, params);
    std::array<FoundMarker, 4> found{};
    std::array<int, 4> seen{};
    for (std::size_t i = 0; i < ids.size(); ++i) {
        const int id = ids[i];
        if (id < 0 || id > 3) continue;  // another marker of the dictionary: not ours
        if (++seen[static_cast<std::size_t>(id)] > 1) {
            return invalid(where, marker_name(id) + " appears twice: print one sheet and use each marker once");
        }
        FoundMarker& m = found[static_cast<std::size_t>(id)];
        m.id = id;
        for (int k = 0; k < 4; ++k) m.corners_px[static_cast<std::size_t>(k)] = corners[i][static_cast<std::size_t>(k)];
    }
    std::string missing, present;
    int n_missing = 0;
    for (int id = 0; id < 4; ++id) {
        std::string& list = seen[static_cast<std::size_t>(id)] ? present : missing;
        list += (list.empty() ? "" : ", ") + marker_name(id);
        n_missing += seen[static_cast<std::size_t>(id)] ? 0 : 1;
    }
    if (n_missing == 4) {
        return invalid(where, "no table markers found (ArUco DICT_4X4_50 ids 0..3): print them with 'meeplecam calibrate print-markers'");
    }
    if (n_missing > 0) {
        return invalid(where, (n_missing == 1 ? missing + " not found" : "not found: " + missing) + " (seen: " + present +
                                  "); all four markers must be in view and unobstructed");
    }
    for (auto& m : found) {
        const auto h = [](cv::Point2d p) { return cv::Vec3d(p.x, p.y, 1); };
        const cv::Vec3d d1 = h(m.corners_px[0]).cross(h(m.corners_px[2])), d2 = h(m.corners_px[1]).cross(h(m.corners_px[3]));
        const cv::Vec3d c = d1.cross(d2);
        MEEPLECAM_CHECK(std::abs(c[2]) > 1e-12, "a detected marker's diagonals cross");
        m.centre_px = {c[0] / c[2], c[1] / c[2]};
    }
    return found;
}

Result<TableCalibration> table_from_markers(const cv::Mat& image, const TableMarkerOptions& o, const CameraIntrinsics* camera,
                                            const std::string& where) {
    if (auto st = o.check(); !st) return st.error();
    std::optional<CameraIntrinsics> cam;
    if (camera) {
        auto scaled = intrinsics_for_size(*camera, image.size(), where);
        if (!scaled) return scaled.error();
        cam = scaled.value();
    }
    auto found = find_table_markers(image, where);
    if (!found) return found.error();
    std::vector<cv::Point2d> centres_px, corners_px;
    for (const auto& m : found.value()) {
        centres_px.push_back(m.centre_px);
        corners_px.insert(corners_px.end(), m.corners_px.begin(), m.corners_px.end());
    }
    if (cam) {
        // Undistorting a point moves it; the projected centre is recomputed from undistorted corners.
        corners_px = undistorted(corners_px, *cam);
        for (std::size_t i = 0; i < 4; ++i) {
            const auto h = [&](std::size_t k) { return cv::Vec3d(corners_px[4 * i + k].x, corners_px[4 * i + k].y, 1); };
            const cv::Vec3d c = h(0).cross(h(2)).cross(h(1).cross(h(3)));
            centres_px[i] = {c[0] / c[2], c[1] / c[2]};
        }
    }
    const std::vector<cv::Point2d> centres_mm(o.centres_mm.begin(), o.centres_mm.end());
    auto coarse = fit_table_plane(centres_mm, centres_px);
    if (!coarse) return invalid(where, "the marker centres: " + coarse.error().message);
    // Each marker's side and turn on the table, from its corners through the coarse plane.
    std::vector<cv::Point2d> table_pts, image_pts;
    for (std::size_t i = 0; i < 4; ++i) {
        std::array<cv::Point2d, 4> t{};
        for (std::size_t k = 0; k < 4; ++k) t[k] = coarse->to_table(corners_px[4 * i + k]);
        double side = 0;
        cv::Point2d x_axis(0, 0);
        for (std::size_t k = 0; k < 4; ++k) {
            const cv::Point2d d = t[(k + 1) % 4] - t[k];
            side += cv::norm(d) / 4;
            // Sides k = 0..3 run along +x, +y, -x, -y of the marker: turn each onto +x.
            const cv::Point2d r = k == 0 ? d : k == 1 ? cv::Point2d(d.y, -d.x) : k == 2 ? -d : cv::Point2d(-d.y, d.x);
            x_axis += r;
        }
        const int id = static_cast<int>(i);
        if (std::abs(side / o.marker_mm - 1) > o.max_size_error) {
            return invalid(where, marker_name(id) + " measures " + fixed(side, 1) + " mm across on the table but was printed at " +
                                      fixed(o.marker_mm, 1) + " mm: check the marker positions (--markers-mm) and the marker size (--marker-mm)");
        }
        x_axis *= 1.0 / cv::norm(x_axis);
        const cv::Point2d y_axis(-x_axis.y, x_axis.x);
        const double s = o.marker_mm / 2;
        const cv::Point2d offsets[4] = {{-s, -s}, {s, -s}, {s, s}, {-s, s}};
        for (std::size_t k = 0; k < 4; ++k) {
            table_pts.push_back(o.centres_mm[i] + offsets[k].x * x_axis + offsets[k].y * y_axis);
            image_pts.push_back(corners_px[4 * i + k]);
        }
    }
    auto fine = fit_table_plane(table_pts, image_pts);
    if (!fine) return invalid(where, "the marker corners: " + fine.error().message);
    TableCalibration table;
    table.source = "markers";
    table.image_size = image.size();
    table.undistorted = cam.has_value();
    table.plane = fine.value();
    for (int id = 0; id < 4; ++id) table.markers.push_back({id, kCornerNames[id], o.centres_mm[static_cast<std::size_t>(id)]});
    return table;
}

Status TilePlaneOptions::check() const {
    if (auto st = lattice.check(); !st) return st;
    if (min_tiles < 2 || max_tiles <= min_tiles) return invalid("tile plane options", "need 2 <= min_tiles < max_tiles");
    return Ok{};
}

Result<TableCalibration> table_from_tiles(const cv::Mat& image, const TilePlaneOptions& options, const CameraIntrinsics* camera,
                                          const std::string& where) {
    if (auto st = options.check(); !st) return st.error();
    if (camera) {
        if (auto scaled = intrinsics_for_size(*camera, image.size(), where); !scaled) return scaled.error();
    }
    vision::LatticeOptions o = options.lattice;
    o.image_to_table_mm.reset();  // measure the plane, do not assume it
    auto view = vision::find_lattice(image, o);
    if (!view) return invalid(where, view.error().message);
    const auto cells = vision::occupied_cells(view.value(), o);
    const int n = static_cast<int>(cells.size());
    if (n < options.min_tiles) {
        return invalid(where, "too few tiles to measure the table plane (" + std::to_string(n) + " found, need " +
                                  std::to_string(options.min_tiles) + "): use the printed markers, or a bigger board");
    }
    if (n > options.max_tiles) {
        return invalid(where, "the tile lattice was misread (" + std::to_string(n) + " cells look like tiles): use the printed markers");
    }
    const cv::Matx33d top_to_mm(1 / view->px_per_mm, 0, 0, 0, 1 / view->px_per_mm, 0, 0, 0, 1);
    TableCalibration table;
    table.source = "tiles";
    table.image_size = image.size();
    table.undistorted = camera != nullptr;
    table.plane.table_to_image = (top_to_mm * view->image_to_top).inv();
    table.plane.rms_error_px = 0;  // no residual: the lattice fit has none in pixels
    return table;
}

Result<cv::Matx33d> image_to_table_for_size(const TableCalibration& table, cv::Size size, const std::string& where) {
    const double sx = static_cast<double>(size.width) / table.image_size.width;
    const double sy = static_cast<double>(size.height) / table.image_size.height;
    if (std::abs(sx - sy) > 0.002 * std::max(sx, sy)) {
        return invalid(where, "is " + std::to_string(size.width) + "x" + std::to_string(size.height) + " but the table plane was measured at " +
                                  std::to_string(table.image_size.width) + "x" + std::to_string(table.image_size.height) +
                                  " (another aspect ratio: measure the table again in this camera mode)");
    }
    const cv::Matx33d scale(sx, 0, 0, 0, sy, 0, 0, 0, 1);
    return (scale * table.plane.table_to_image).inv();
}

}  // namespace meeplecam::calibration
