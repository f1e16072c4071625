// NewGameDialog: the set-up of a new match — game, expansions, edition, followers, players
// and their colours — remembered with QSettings for the next time.
#pragma once

#include <QDialog>

#include "engine/record.h"

class QComboBox;
class QSpinBox;
class QTableWidget;
class QListWidget;
class QLabel;

namespace meeplecam::ui {

class NewGameDialog : public QDialog {
    Q_OBJECT
public:
    explicit NewGameDialog(QWidget* parent = nullptr);

    // Fills the fields from `setup` (game, expansions, edition, players).
    void set_setup(const Record& setup);
    // The record a new match starts from: the set-up and, when the catalog names one, the
    // start tile at [0, 0]; an Invalid error naming the field when the set-up is not playable.
    Result<Record> setup() const;
    // Remembers the current fields (QSettings) / restores them.
    void save_settings() const;
    void load_settings();

    void accept() override;

private:
    void refresh_expansions();

    QComboBox* game_ = nullptr;
    QListWidget* expansions_ = nullptr;
    QComboBox* edition_ = nullptr;
    QSpinBox* players_count_ = nullptr;
    QTableWidget* players_ = nullptr;
    QLabel* error_ = nullptr;
};

// The set-up record for a game: players, game, expansions; the start tile placed at [0, 0].
Result<Record> make_setup(const std::string& game, const std::vector<std::string>& expansions, const std::string& edition,
                          const std::vector<PlayerInfo>& players);

}  // namespace meeplecam::ui
