// ScoreTableModel: the scoreboard (player, colour, score, followers left) as a Qt model.
#pragma once

#include <QAbstractTableModel>
#include <QIcon>

#include <map>
#include <vector>

namespace meeplecam::ui {

struct ScoreRow {
    QString name;
    QString color;
    int score = 0;
    int followers_left = 0;
};

class ScoreTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Color, Score, Followers, ColumnCount };
    using QAbstractTableModel::QAbstractTableModel;

    // Replaces the rows (called on the GUI thread with values from the engine).
    void set_rows(std::vector<ScoreRow> rows);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // Returns the colour swatch shown beside a player's colour: one icon per colour for the
    // model's life. (A QColor as decoration made the delegate build a new pixmap and icon at
    // every paint, and each got its own entry in QPixmapCache: memory grew with every repaint
    // of the scoreboard until the cache's 10 MB limit.) A null icon for an unknown colour.
    const QIcon& swatch(const QString& color) const;

private:
    std::vector<ScoreRow> rows_;
    mutable std::map<QString, QIcon> swatches_;
};

}  // namespace meeplecam::ui
