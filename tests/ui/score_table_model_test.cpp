#include <catch2/catch.hpp>

#include <QColor>

#include "ui/score_table_model.h"

using namespace meeplecam;

TEST_CASE("the scoreboard model shows players, colours and scores", "[ui]") {
    ui::ScoreTableModel model;
    CHECK(model.rowCount() == 0);
    model.set_rows({{"Ana", "red", 12, 5}, {"Ben", "grey", -3, 7}});
    REQUIRE(model.rowCount() == 2);
    CHECK(model.columnCount() == ui::ScoreTableModel::ColumnCount);
    CHECK(model.data(model.index(0, ui::ScoreTableModel::Name)).toString() == "Ana");
    CHECK(model.data(model.index(1, ui::ScoreTableModel::Score)).toInt() == -3);
    CHECK(model.data(model.index(1, ui::ScoreTableModel::Color), Qt::DecorationRole).value<QColor>() == QColor("gray"));
    CHECK_FALSE(model.data(model.index(5, 0)).isValid());
    CHECK(model.headerData(ui::ScoreTableModel::Score, Qt::Horizontal).toString() == "Score");
}
