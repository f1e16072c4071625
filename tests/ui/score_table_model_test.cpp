#include <catch2/catch.hpp>

#include <QColor>
#include <QIcon>
#include <QImage>
#include <QPixmap>

#include "tests/ui/qt_app.h"
#include "ui/score_table_model.h"

using namespace meeplecam;

namespace {

QColor swatch_colour(const QVariant& decoration) {
    return decoration.value<QIcon>().pixmap(16, 16).toImage().pixelColor(8, 8);
}

}  // namespace

TEST_CASE("the scoreboard model shows players, colours and scores", "[ui]") {
    test::qt_app();
    ui::ScoreTableModel model;
    CHECK(model.rowCount() == 0);
    model.set_rows({{"Ana", "red", 12, 5}, {"Ben", "grey", -3, 7}});
    REQUIRE(model.rowCount() == 2);
    CHECK(model.columnCount() == ui::ScoreTableModel::ColumnCount);
    CHECK(model.data(model.index(0, ui::ScoreTableModel::Name)).toString() == "Ana");
    CHECK(model.data(model.index(1, ui::ScoreTableModel::Score)).toInt() == -3);
    CHECK(swatch_colour(model.data(model.index(1, ui::ScoreTableModel::Color), Qt::DecorationRole)) == QColor("gray"));
    CHECK(swatch_colour(model.data(model.index(0, ui::ScoreTableModel::Color), Qt::DecorationRole)) == QColor("red"));
    CHECK_FALSE(model.data(model.index(5, 0)).isValid());
    CHECK(model.headerData(ui::ScoreTableModel::Score, Qt::Horizontal).toString() == "Score");
}

// A new pixmap per paint made the item delegate add a QPixmapCache entry at every repaint of
// the scoreboard (the memory of a long session grew with it): the swatch of a colour is one
// icon, the same after the rows are replaced.
TEST_CASE("the scoreboard's colour swatches are made once per colour", "[ui]") {
    test::qt_app();
    ui::ScoreTableModel model;
    model.set_rows({{"Ana", "red", 0, 7}, {"Ben", "blue", 0, 7}});
    const QModelIndex red = model.index(0, ui::ScoreTableModel::Color);
    const qint64 key = model.data(red, Qt::DecorationRole).value<QIcon>().cacheKey();
    CHECK(model.data(red, Qt::DecorationRole).value<QIcon>().cacheKey() == key);
    model.set_rows({{"Ana", "red", 12, 6}, {"Ben", "blue", 3, 7}});
    CHECK(model.data(model.index(0, ui::ScoreTableModel::Color), Qt::DecorationRole).value<QIcon>().cacheKey() == key);
    CHECK(model.data(model.index(1, ui::ScoreTableModel::Color), Qt::DecorationRole).value<QIcon>().cacheKey() != key);
    model.set_rows({{"Cid", "no such colour", 0, 7}});
    CHECK_FALSE(model.data(model.index(0, ui::ScoreTableModel::Color), Qt::DecorationRole).isValid());
}
