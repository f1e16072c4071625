// The new-game dialog (set-up, QSettings) and the tile-library wizard (runs learn-tiles).
#include <catch2/catch.hpp>

#include <QSettings>
#include <QSignalSpy>

#include <random>

#include <opencv2/imgcodecs.hpp>

#include "tests/ui/qt_app.h"
#include "ui/new_game_dialog.h"
#include "ui/tile_library_wizard.h"
#include "vision/tile_art.h"
#include "vision/tile_library.h"

using namespace meeplecam;

TEST_CASE("a new game's set-up starts with the start tile and refuses shared colours", "[ui][setup]") {
    auto base = ui::make_setup("carcassonne", {}, "C3", {{"Ana", "red"}, {"Ben", "blue"}});
    REQUIRE(base);
    REQUIRE(base->events.size() == 1);
    CHECK(base->events[0].tile == "D");
    CHECK(base->events[0].player.empty());
    auto same = ui::make_setup("carcassonne", {}, "C3", {{"Ana", "red"}, {"Ben", "red"}});
    REQUIRE_FALSE(same);
    CHECK(same.error().to_string().find("colour red") != std::string::npos);
    auto unknown = ui::make_setup("carcassonne", {"no-such-expansion"}, "C3", {{"Ana", "red"}});
    CHECK_FALSE(unknown);
    auto bcb = ui::make_setup("carcassonne", {"bridges-castles-bazaars"}, "C3", {{"Ana", "red"}, {"Ben", "blue"}, {"Cy", "green"}});
    REQUIRE(bcb);
    CHECK(bcb->expansions == std::vector<std::string>{"bridges-castles-bazaars"});
}

TEST_CASE("the new-game dialog keeps its set-up in the settings", "[ui][setup]") {
    test::qt_app();
    QSettings().remove("new-game/record");
    auto setup = ui::make_setup("carcassonne", {"ferries"}, "C2", {{"Ana", "green"}, {"Ben", "yellow"}, {"Cy", "black"}});
    REQUIRE(setup);
    {
        ui::NewGameDialog dialog;
        dialog.set_setup(setup.value());
        auto back = dialog.setup();
        REQUIRE(back);
        CHECK(back->to_json() == setup->to_json());
        dialog.save_settings();
    }
    ui::NewGameDialog fresh;
    fresh.load_settings();
    auto loaded = fresh.setup();
    REQUIRE(loaded);
    CHECK(loaded->players.size() == 3);
    CHECK(loaded->players[2].color == "black");
    CHECK(loaded->edition == "C2");
    CHECK(loaded->expansions == std::vector<std::string>{"ferries"});
}

TEST_CASE("the tile-library wizard learns a tile from a photo with learn-tiles", "[ui][wizard]") {
    test::qt_app();
    const QString dir = test::fresh_dir("tile_wizard");
    auto catalog = Catalog::embedded("carcassonne-base");
    REQUIRE(catalog);
    std::mt19937_64 rng(3);
    const cv::Mat tile = vision::render_tile(*catalog->find("D"), /*rot=*/0, 200, vision::builtin_tile_styles().front(), rng);
    cv::Mat photo(320, 320, CV_8UC3, cv::Scalar(60, 60, 60));  // the tile on a dark table
    tile.copyTo(photo(cv::Rect(60, 60, 200, 200)));
    REQUIRE(cv::imwrite((dir + "/D.png").toStdString(), photo));

    ui::TileLibraryWizard wizard(QString(MEEPLECAM_BINARY_DIR) + "/meeplecam");
    wizard.set_photos({dir + "/D.png"});
    wizard.set_layout("names");
    wizard.set_output(dir + "/library.json");
    QSignalSpy done(&wizard, &ui::TileLibraryWizard::finished_learning);
    wizard.learn();
    REQUIRE(done.wait(60000));
    INFO(wizard.log().toStdString());
    CHECK(done.first().at(0).toBool());
    auto library = vision::TileLibrary::load((dir + "/library.json").toStdString());
    REQUIRE(library);
    CHECK(library->has_tile("D"));
    CHECK_FALSE(library->has_tile("V"));
    CHECK(QSettings().value("tiles/library").toString() == dir + "/library.json");
}
