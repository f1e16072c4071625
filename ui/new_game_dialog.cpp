#include "ui/new_game_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QSettings>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include <set>

#include "engine/rule_module.h"

namespace meeplecam::ui {
namespace {

const char* const kColours[] = {"red", "blue", "green", "yellow", "black", "grey"};
// The expansions a Carcassonne match may add (record names; bundles first).
const char* const kExpansions[] = {"bridges-castles-bazaars", "ferries", "bridges", "castles", "bazaars"};

}  // namespace

Result<Record> make_setup(const std::string& game, const std::vector<std::string>& expansions, const std::string& edition,
                          const std::vector<PlayerInfo>& players) {
    Record r;
    r.game = game;
    r.expansions = game == "carcassonne" ? expansions : std::vector<std::string>{};
    r.edition = edition;
    r.players = players;
    if (players.empty() || players.size() > 6) return invalid("players", "a match needs 1 to 6 players");
    std::set<std::string> colours;
    for (const auto& p : players) {
        if (p.name.empty()) return invalid("players", "every player needs a name");
        if (!colours.insert(p.color).second) return invalid("players", "two players share the colour " + p.color);
    }
    auto catalog = catalog_for(r);
    if (!catalog) return catalog.error();
    if (!catalog.value()->start_tile().empty()) {
        Event start;
        start.type = "tile";
        start.tile = catalog.value()->start_tile();
        start.at = {0, 0};
        start.rot = 0;
        r.events.push_back(start);
    }
    if (auto game_check = replay(r); !game_check) return game_check.error();
    return r;
}

NewGameDialog::NewGameDialog(QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("New game"));
    game_ = new QComboBox;
    game_->addItem(tr("Carcassonne"), "carcassonne");
    game_->addItem(tr("Carcassonne — The City"), "city");
    game_->addItem(tr("Carcassonne — Amazonas"), "amazonas");
    expansions_ = new QListWidget;
    for (const char* e : kExpansions) {
        auto* item = new QListWidgetItem(QString::fromLatin1(e), expansions_);
        item->setCheckState(Qt::Unchecked);
    }
    edition_ = new QComboBox;
    edition_->addItems({"C3", "C2", "C1"});
    players_count_ = new QSpinBox;
    players_count_->setRange(1, 6);
    players_ = new QTableWidget(6, 2);
    players_->setHorizontalHeaderLabels({tr("Name"), tr("Colour")});
    players_->horizontalHeader()->setStretchLastSection(true);
    for (int i = 0; i < 6; ++i) {
        players_->setItem(i, 0, new QTableWidgetItem(tr("Player %1").arg(i + 1)));
        auto* colour = new QComboBox;
        for (const char* c : kColours) colour->addItem(QString::fromLatin1(c));
        colour->setCurrentIndex(i);
        players_->setCellWidget(i, 1, colour);
    }
    connect(players_count_, &QSpinBox::valueChanged, this, [this](int n) {
        for (int i = 0; i < 6; ++i) players_->setRowHidden(i, i >= n);
    });
    players_count_->setValue(2);
    for (int i = 2; i < 6; ++i) players_->setRowHidden(i, true);
    connect(game_, &QComboBox::currentIndexChanged, this, &NewGameDialog::refresh_expansions);
    error_ = new QLabel;
    error_->setStyleSheet("color: #b00000");
    error_->setWordWrap(true);

    auto* form = new QFormLayout;
    form->addRow(tr("Game"), game_);
    form->addRow(tr("Expansions"), expansions_);
    form->addRow(tr("Edition (tile counts)"), edition_);
    form->addRow(tr("Players"), players_count_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    connect(buttons, &QDialogButtonBox::accepted, this, &NewGameDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &NewGameDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(players_, 1);
    layout->addWidget(error_);
    layout->addWidget(buttons);
    resize(520, 560);
}

void NewGameDialog::refresh_expansions() { expansions_->setEnabled(game_->currentData().toString() == "carcassonne"); }

void NewGameDialog::set_setup(const Record& setup) {
    game_->setCurrentIndex(std::max(0, game_->findData(QString::fromStdString(setup.game))));
    for (int i = 0; i < expansions_->count(); ++i) {
        const std::string name = expansions_->item(i)->text().toStdString();
        const bool on = std::find(setup.expansions.begin(), setup.expansions.end(), name) != setup.expansions.end();
        expansions_->item(i)->setCheckState(on ? Qt::Checked : Qt::Unchecked);
    }
    edition_->setCurrentText(QString::fromStdString(setup.edition));
    players_count_->setValue(static_cast<int>(std::clamp<std::size_t>(setup.players.size(), 1, 6)));
    for (std::size_t i = 0; i < setup.players.size() && i < 6; ++i) {
        players_->item(static_cast<int>(i), 0)->setText(QString::fromStdString(setup.players[i].name));
        static_cast<QComboBox*>(players_->cellWidget(static_cast<int>(i), 1))->setCurrentText(QString::fromStdString(setup.players[i].color));
    }
    refresh_expansions();
}

Result<Record> NewGameDialog::setup() const {
    std::vector<std::string> expansions;
    for (int i = 0; i < expansions_->count(); ++i) {
        if (expansions_->item(i)->checkState() == Qt::Checked) expansions.push_back(expansions_->item(i)->text().toStdString());
    }
    std::vector<PlayerInfo> players;
    for (int i = 0; i < players_count_->value(); ++i) {
        players.push_back({players_->item(i, 0)->text().trimmed().toStdString(),
                           static_cast<QComboBox*>(players_->cellWidget(i, 1))->currentText().toStdString()});
    }
    return make_setup(game_->currentData().toString().toStdString(), expansions, edition_->currentText().toStdString(), players);
}

void NewGameDialog::save_settings() const {
    auto r = setup();
    if (!r) return;
    QSettings settings;
    settings.setValue("new-game/record", QString::fromStdString(r->to_json().dump()));
}

void NewGameDialog::load_settings() {
    QSettings settings;
    const QString text = settings.value("new-game/record").toString();
    if (text.isEmpty()) return;
    auto r = parse_record_text(text.toStdString(), "settings");
    if (r) set_setup(r.value());
}

void NewGameDialog::accept() {
    auto r = setup();
    if (!r) {
        error_->setText(QString::fromStdString(r.error().to_string()));
        return;
    }
    save_settings();
    QDialog::accept();
}

}  // namespace meeplecam::ui
