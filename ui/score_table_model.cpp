#include "ui/score_table_model.h"

#include <QColor>
#include <QPixmap>

namespace meeplecam::ui {

void ScoreTableModel::set_rows(std::vector<ScoreRow> rows) {
    beginResetModel();
    rows_ = std::move(rows);
    endResetModel();
}

int ScoreTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int ScoreTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ScoreTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= static_cast<int>(rows_.size())) return {};
    const ScoreRow& row = rows_[static_cast<std::size_t>(index.row())];
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
            case Name: return row.name;
            case Color: return row.color;
            case Score: return row.score;
            case Followers: return row.followers_left;
            default: return {};
        }
    }
    if (role == Qt::DecorationRole && index.column() == Color) {
        const QIcon& icon = swatch(row.color);
        return icon.isNull() ? QVariant() : QVariant(icon);
    }
    return {};
}

const QIcon& ScoreTableModel::swatch(const QString& color) const {
    auto it = swatches_.find(color);
    if (it != swatches_.end()) return it->second;
    const QColor c(color == QStringLiteral("grey") ? QStringLiteral("gray") : color);
    QIcon icon;
    if (c.isValid()) {
        QPixmap pixmap(16, 16);
        pixmap.fill(c);
        icon = QIcon(pixmap);
    }
    return swatches_.emplace(color, std::move(icon)).first->second;
}

QVariant ScoreTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case Name: return tr("Player");
        case Color: return tr("Colour");
        case Score: return tr("Score");
        case Followers: return tr("Followers left");
        default: return {};
    }
}

}  // namespace meeplecam::ui
