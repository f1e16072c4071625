// Bazaars: after a turn whose tile shows a bazaar, one tile per player is auctioned and placed.
#pragma once

#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "engine/rule_module.h"

namespace meeplecam {

// The Bazaars part of Bridges, Castles and Bazaars (seed 002). Events: `auction` (the active
// player reveals one tile per player) and `auction-round` (one per tile: pick, bids, buy or sell;
// the last tile is free). Then every player places the tile they acquired, as a normal turn,
// starting with the player after the active player. See docs/rules/bazaars.md for every choice.
class BazaarsModule : public RuleModule {
public:
    enum class Variant { Auction, NoBidding };
    enum class Phase {
        Idle,     // normal play
        Due,      // a bazaar turn was scored: the `auction` event (the reveal) comes next
        Bidding,  // tiles revealed: `auction-round` events until every tile has an owner
        Placing,  // players place their acquired tiles, in order
        Resume,   // all placed: normal play resumes with the player after the active player
    };

    std::string_view name() const override { return "bazaars"; }
    Status configure(const nlohmann::json& options) override;
    std::vector<std::string> catalogs() const override { return {"carcassonne-bridges-castles-bazaars"}; }
    std::vector<std::string> event_types() const override { return {"auction", "auction-round"}; }
    Status apply_event(Game& game, const Event& event, const std::string& where) override;
    Status before_core_event(Game& game, const Event& event, const std::string& where) override;
    void on_tile_placed(Game& game) override;
    void on_turn_scored(Game& game) override;
    void on_tile_discarded(Game& game, int player, const TileType& type) override;
    std::optional<int> next_player(const Game& game) const override;
    std::vector<Event> options(const Game& game) const override;
    bool must_act(const Game& game) const override;
    int tiles_to_reveal(const Game& game) const override;
    std::optional<Event> reveal_event(const Game& game, const std::vector<std::string>& tiles) const override;
    std::optional<std::string> assigned_tile(const Game& game) const override;

    Variant variant() const { return variant_; }
    bool bids_limited_to_score() const { return limited_; }
    Phase phase() const { return phase_; }
    // True when the open turn (or the one just ended) owes an auction: the reveal comes next.
    bool auction_due(const Game& game) const;
    // Revealed tiles not yet acquired (during bidding).
    const std::vector<std::string>& unsold() const { return unsold_; }
    // The tile a player acquired in the current auction and has not placed yet ("" if none).
    std::string acquired(int player) const;
    // True when the current auction runs without bids (the variant, or footnote 13).
    bool no_bidding_now() const { return no_bidding_; }

private:
    // True when the open turn's tile would start an auction once the turn is scored.
    bool trigger_pending(const Game& game) const;
    // Why no auction may start now (for error messages).
    std::string why_no_auction(const Game& game) const;
    Status reveal(Game& game, const Event& e, const std::string& where);
    Status round(Game& game, const Event& e, const std::string& where);
    // The first player after `p` (seat order, `p` itself last) without a tile; -1 if none.
    int next_without_tile(int p) const;
    // Players without a tile who may bid after `picker`, in seat order.
    std::vector<int> bidders_after(int picker) const;
    void pay(Game& game, int player, int points, const std::string& explanation) const;

    Variant variant_ = Variant::Auction;
    bool limited_ = false;  // bids_limited_to_score

    Phase phase_ = Phase::Idle;
    int active_ = -1;                     // the player whose bazaar started the auction
    int players_ = 0;
    bool no_bidding_ = false;             // this auction has no bids
    std::vector<std::string> unsold_;     // revealed, not yet acquired
    std::vector<std::string> won_;        // per player: the acquired tile, "" none / placed
    int picker_ = -1;                     // who picks the next tile
    std::deque<int> placing_;             // players still to place their acquired tile, in order
    bool auctioned_turn_ = false;         // the open turn's tile was acquired at an auction
};

}  // namespace meeplecam
