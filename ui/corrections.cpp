#include "ui/corrections.h"

#include <QObject>

#include <algorithm>
#include <cmath>

#include "engine/correction.h"
#include "engine/ports.h"

namespace meeplecam::ui {

void rank_tile_choices(std::vector<TileChoice>& choices, const std::vector<TileOdds>* odds, const std::string& current_type) {
    for (TileChoice& c : choices) {
        c.likelihood = -1;
        if (!odds) continue;
        for (const TileOdds& o : *odds) {
            if (o.tile == c.tile && o.rot == c.rot) c.likelihood = std::max(c.likelihood, o.share);
        }
    }
    std::stable_sort(choices.begin(), choices.end(), [&](const TileChoice& a, const TileChoice& b) {
        if ((a.likelihood >= 0) != (b.likelihood >= 0)) return a.likelihood >= 0;
        if (a.likelihood != b.likelihood) return a.likelihood > b.likelihood;
        if ((a.tile == current_type) != (b.tile == current_type)) return a.tile == current_type;
        return a.copies_left > b.copies_left;
    });
    for (TileChoice& c : choices) {
        const QString name = QObject::tr("%1 %2°").arg(QString::fromStdString(c.tile)).arg(c.rot * 90);
        // A likelihood under half a percent still reads "<1 %": it was judged, just unlikely.
        const long percent = std::lround(c.likelihood * 100);
        c.label = c.likelihood >= 0 ? (percent >= 1 ? QObject::tr("%1 %2 %").arg(name).arg(percent) : QObject::tr("%1 <1 %").arg(name))
                                    : QObject::tr("%1 (%2 left)").arg(name).arg(c.copies_left);
    }
}

std::vector<TileChoice> record_tile_choices(const Record& record, const Game& open, Cell at, const std::vector<TileOdds>* odds) {
    std::vector<TileChoice> out;
    auto it = std::find_if(record.events.begin(), record.events.end(), [&](const Event& e) { return e.type == "tile" && e.at == at; });
    if (it == record.events.end()) return out;
    for (const TileType& t : open.catalog().tiles()) {
        const int left = open.supply_left(t) + (t.id == it->tile ? 1 : 0);
        if (left <= 0) continue;
        for (int r : t.distinct_rotations) {
            if (t.id == it->tile && r == it->rot) continue;
            Record trial = record;
            if (!correct_tile_event(trial, at, t.id, r) || !replay(trial)) continue;
            out.push_back({t.id, r, -1, left - (t.id == it->tile ? 1 : 0), {}});
        }
    }
    rank_tile_choices(out, odds, it->tile);
    return out;
}

std::vector<PieceChoice> record_piece_choices(const Record& record, Cell at, const PieceOdds* odds) {
    std::vector<PieceChoice> out;
    auto it = std::find_if(record.events.begin(), record.events.end(), [&](const Event& e) { return e.type == "meeple" && e.at == at; });
    if (it == record.events.end()) return out;
    auto legal = [&](const std::string& colour, const std::string& loc) {
        Record trial = record;
        return correct_follower_event(trial, at, colour, loc) && replay(trial);
    };
    for (const PlayerInfo& p : record.players) {
        if (p.color != it->player && legal(p.color, it->loc)) {
            out.push_back({p.color, it->loc, QObject::tr("owner: %1 (%2)").arg(QString::fromStdString(p.color), QString::fromStdString(p.name)), -1});
        }
    }
    for (int port = 0; port <= kCentre; ++port) {
        const std::string name(port_name(static_cast<Port>(port)));
        if (name != it->loc && legal(it->player, name)) {
            out.push_back({it->player, name, QObject::tr("feature: %1").arg(QString::fromStdString(name)), -1});
        }
    }
    if (odds) {
        // An owner not judged (no colour seen) counts as likely as any: 1 / players.
        const double even = record.players.empty() ? 1.0 : 1.0 / static_cast<double>(record.players.size());
        auto colour_share = [&](const std::string& c) {
            if (odds->colour.empty()) return even;
            const auto f = odds->colour.find(c);
            return f == odds->colour.end() ? 0.0 : f->second;
        };
        for (PieceChoice& c : out) {
            const auto port = odds->port.find(c.loc);
            if (port == odds->port.end()) continue;
            c.likelihood = colour_share(c.colour) * port->second;
            const long percent = std::lround(c.likelihood * 100);
            c.label += percent >= 1 ? QObject::tr(" %1 %").arg(percent) : QObject::tr(" <1 %");
        }
        std::stable_sort(out.begin(), out.end(), [](const PieceChoice& a, const PieceChoice& b) {
            if ((a.likelihood >= 0) != (b.likelihood >= 0)) return a.likelihood >= 0;
            return a.likelihood > b.likelihood;
        });
    }
    out.push_back({"", it->loc, QObject::tr("remove the follower"), -1});
    return out;
}

std::vector<double> shares_from_distances(const std::vector<double>& distance, double scale) {
    if (distance.empty() || !(scale > 0)) return {};
    const double nearest = *std::min_element(distance.begin(), distance.end());
    std::vector<double> out;
    double sum = 0;
    for (double d : distance) sum += out.emplace_back(std::exp(-(d - nearest) / scale));
    for (double& share : out) share /= sum;
    return out;
}

}  // namespace meeplecam::ui
